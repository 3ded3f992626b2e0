import { describe, expect, it } from 'vitest';
import { claimValues, highestRole, matchingRoles, parseRoleMappings } from './role-mapping.ts';

describe('FLAGSTAFF_OIDC_ROLES', () => {
  it('reads organisation-wide and per-project mappings', () => {
    expect(parseRoleMappings('flag-admins=admin, shop-devs=editor:webshop,support=viewer')).toEqual([
      { value: 'flag-admins', role: 'admin', project: null },
      { value: 'shop-devs', role: 'editor', project: 'webshop' },
      { value: 'support', role: 'viewer', project: null },
    ]);
  });

  it('keeps an equals sign inside a claim value: the last one starts the role', () => {
    expect(parseRoleMappings('cn=devs=viewer')).toEqual([
      { value: 'cn=devs', role: 'viewer', project: null },
    ]);
  });

  it.each([
    ['', /at least one/],
    ['admins', /not value=role/],
    ['=admin', /not value=role/],
    ['admins=owner', /one of evaluator, viewer, editor, admin/],
    ['devs=editor:', /at most one/],
    ['devs=editor:a:b', /at most one/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseRoleMappings(raw)).toThrow(message);
  });
});

describe('the role a person gets', () => {
  const mappings = parseRoleMappings('support=viewer,shop-devs=editor:webshop,ops=editor,flag-admins=admin');

  it('is the highest of the matching mappings', () => {
    expect(highestRole(matchingRoles(mappings, ['support', 'shop-devs']))).toEqual({
      value: 'shop-devs',
      role: 'editor',
      project: 'webshop',
    });
    expect(highestRole(matchingRoles(mappings, ['support', 'flag-admins']))?.role).toBe('admin');
  });

  it('prefers organisation-wide over one project between equal roles', () => {
    expect(highestRole(matchingRoles(mappings, ['shop-devs', 'ops']))?.project).toBeNull();
  });

  it('is nothing when no claim value is mapped', () => {
    expect(highestRole(matchingRoles(mappings, ['marketing']))).toBeUndefined();
  });

  it('reads a claim that is a list or one string, and ignores anything else', () => {
    expect(claimValues(['a', 1, 'b'])).toEqual(['a', 'b']);
    expect(claimValues('a')).toEqual(['a']);
    expect(claimValues({ a: 1 })).toEqual([]);
  });
});
