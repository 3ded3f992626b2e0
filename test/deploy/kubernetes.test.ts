import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig, loadEdgeConfig } from '../../src/config.ts';

const KUBERNETES = join(import.meta.dirname, '../../deploy/kubernetes');
const BASE = join(KUBERNETES, 'base');
const LOCAL = join(KUBERNETES, 'overlays/local');
const EDGE = join(KUBERNETES, 'overlays/edge');

/** `kubectl kustomize` (Debian's kubernetes-client has it) or a standalone `kustomize`, whichever is installed. */
function renderer(): readonly string[] | undefined {
  const installed = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
  if (installed('kubectl')) return ['kubectl', 'kustomize'];
  if (installed('kustomize')) return ['kustomize', 'build'];
  return undefined;
}

const render = renderer();

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are read as plain YAML
type Manifest = any;

/** The manifests kustomize renders from `folder`. */
function manifests(folder: string): Manifest[] {
  const [command, ...args] = render as string[];
  const text = execFileSync(command as string, [...args, folder], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseAllDocuments(text).map((document) => document.toJS());
}

/** The example Secret's values: the shape operators copy, never applied. */
const exampleSecret = (): Record<string, string> =>
  parseAllDocuments(readFileSync(join(BASE, 'secret.example.yaml'), 'utf8'))[0]?.toJS().stringData;

describe.skipIf(render === undefined)(
  'the Kubernetes base in deploy/kubernetes, as kustomize renders it',
  () => {
    const all = render === undefined ? [] : manifests(LOCAL);
    const one = (kind: string) => {
      const found = all.filter((manifest) => manifest.kind === kind);
      expect(found, kind).toHaveLength(1);
      return found[0];
    };
    const deployment = () => one('Deployment');
    const container = () => deployment().spec.template.spec.containers[0];
    const env = () => ({ ...one('ConfigMap').data, ...exampleSecret() });

    it('applies no Secret: no publicly known key is installed, and a Secret of yours is never overwritten', () => {
      for (const folder of [BASE, LOCAL]) {
        expect(manifests(folder).filter((manifest) => manifest.kind === 'Secret')).toEqual([]);
      }
      expect(container().envFrom).toContainEqual({ secretRef: { name: 'flagstaff' } });
    });

    it('refuses to start with the example Secret’s placeholders, in one line', () => {
      expect(() => loadConfig(env())).toThrow(/^FLAGSTAFF_\w+ holds the documented placeholder[^\n]+$/);
      const own = { ...env(), FLAGSTAFF_ADMIN_KEY: 'k'.repeat(40), FLAGSTAFF_SECRET_KEY: 's'.repeat(40) };
      expect(() => loadConfig(own)).toThrow(
        /^FLAGSTAFF_DATABASE_URL holds the documented placeholder password/,
      );
    });

    it('takes the image and its pull policy from an overlay, not the base', () => {
      const base = manifests(BASE).find((manifest) => manifest.kind === 'Deployment').spec.template.spec
        .containers[0];
      // The base names no registry or tag a real cluster would try to pull.
      expect(base.image).toBe('flagstaff');
      expect(base.imagePullPolicy).toBe('IfNotPresent');
      expect(container().image).toBe('localhost/flagstaff:latest');
      expect(container().imagePullPolicy).toBe('Never');
    });

    it('labels with `labels`, not the deprecated commonLabels', () => {
      for (const folder of [BASE, LOCAL]) {
        const kustomization = readFileSync(join(folder, 'kustomization.yaml'), 'utf8');
        expect(kustomization).not.toMatch(/^commonLabels:/m);
      }
      expect(deployment().spec.selector.matchLabels['app.kubernetes.io/name']).toBe('flagstaff');
    });
    it('runs two replicas, ready on /readyz and alive on /healthz', () => {
      expect(deployment().spec.replicas).toBe(2);
      expect(container().readinessProbe.httpGet.path).toBe('/readyz');
      expect(container().livenessProbe.httpGet.path).toBe('/healthz');
      expect(container().ports[0].containerPort).toBe(Number(env().FLAGSTAFF_PORT));
    });

    it('gives a stopping pod time for the preStop pause and the whole drain', () => {
      const preStop = container().lifecycle.preStop.exec.command.join(' ');
      const pauseMs = Number(/setTimeout\(\(\) => \{\}, (\d+)\)/.exec(preStop)?.[1]);
      expect(pauseMs).toBeGreaterThan(0);
      const graceSeconds = Number(env().FLAGSTAFF_SHUTDOWN_GRACE);
      expect(graceSeconds).toBeGreaterThan(0);
      expect(deployment().spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
        pauseMs / 1000 + graceSeconds + 1,
      );
    });

    it('runs as non-root on a read-only root filesystem, with an emptyDir for each writable path', () => {
      const pod = deployment().spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).not.toBe(0);
      expect(container().securityContext.readOnlyRootFilesystem).toBe(true);
      expect(container().securityContext.allowPrivilegeEscalation).toBe(false);
      const volumes = new Map(pod.volumes.map((volume: Manifest) => [volume.name, volume]));
      const mounted = container().volumeMounts.map((mount: Manifest) => {
        expect((volumes.get(mount.name) as Manifest)?.emptyDir, mount.name).toBeDefined();
        return mount.mountPath;
      });
      // /data is the image's volume; /tmp is where Node and libraries write temporary files.
      expect(mounted.sort()).toEqual(['/data', '/tmp']);
      expect(readFileSync(join(KUBERNETES, '../../Dockerfile'), 'utf8')).toMatch(/^VOLUME \/data$/m);
    });

    it('requests and limits resources', () => {
      const { requests, limits } = container().resources;
      expect(requests.cpu).toBeDefined();
      expect(requests.memory).toBeDefined();
      expect(limits.memory).toBeDefined();
    });

    it('has a Service and a PodDisruptionBudget that select the Deployment’s pods', () => {
      const labels = deployment().spec.template.metadata.labels;
      const selects = (selector: Record<string, string>) =>
        Object.entries(selector).every(([name, value]) => labels[name] === value);
      expect(selects(one('Service').spec.selector)).toBe(true);
      expect(selects(one('PodDisruptionBudget').spec.selector.matchLabels)).toBe(true);
      expect(one('PodDisruptionBudget').spec.minAvailable).toBe(1);
      expect(selects(deployment().spec.selector.matchLabels)).toBe(true);
    });

    it('sets only variables the service knows, with values it accepts', () => {
      const known = new Set(
        readFileSync(join(import.meta.dirname, '../../src/config.ts'), 'utf8').match(
          /\b(FLAGSTAFF|OTEL)_[A-Z_]+\b/g,
        ),
      );
      const envFrom = container().envFrom.map(
        (source: Manifest) => source.configMapRef?.name ?? source.secretRef?.name,
      );
      expect(envFrom).toEqual(['flagstaff', 'flagstaff']);
      const names = [...Object.keys(env()), ...(container().env ?? []).map((v: Manifest) => v.name)];
      expect(names.filter((name) => !known.has(name))).toEqual([]);
      const own = {
        ...env(),
        FLAGSTAFF_DATABASE_URL: 'postgres://flagstaff:a-real-password@postgres:5432/flagstaff',
        FLAGSTAFF_ADMIN_KEY: 'k'.repeat(40),
        FLAGSTAFF_SECRET_KEY: 's'.repeat(40),
      };
      expect(() => loadConfig(own)).not.toThrow();
    });
  },
);

describe.skipIf(render === undefined)('the edge overlay, as kustomize renders it (docs/edge.md)', () => {
  const all = render === undefined ? [] : manifests(EDGE);
  const kinds = all.map((manifest) => manifest.kind).sort();
  const deployment = all.find((manifest) => manifest.kind === 'Deployment');
  const container = deployment?.spec.template.spec.containers[0];
  const data = all.find((manifest) => manifest.kind === 'ConfigMap')?.data ?? {};

  it('is a Deployment and a Service with their settings, and no Secret, database or disruption budget of the core', () => {
    expect(kinds).toEqual(['ConfigMap', 'Deployment', 'Service']);
    expect(Object.keys(data).filter((name) => name.includes('DATABASE'))).toEqual([]);
    const service = all.find((manifest) => manifest.kind === 'Service');
    for (const [label, value] of Object.entries(service.spec.selector)) {
      expect(deployment.spec.template.metadata.labels[label]).toBe(value);
    }
  });

  it('runs the same image with `edge` as its command, its cache on a volume of its own', () => {
    expect(container.image).toBe('localhost/flagstaff:latest');
    expect(container.args).toEqual(['edge']);
    const cache = container.volumeMounts.find(
      (mount: Manifest) => mount.mountPath === data.FLAGSTAFF_EDGE_CACHE,
    );
    expect(cache).toBeDefined();
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
  });

  it('starts with its settings and the edge key from its Secret, and names the key when it is missing', () => {
    expect(container.envFrom).toEqual([
      { configMapRef: { name: 'flagstaff-edge' } },
      { secretRef: { name: 'flagstaff-edge' } },
    ]);
    expect(() => loadEdgeConfig(data)).toThrow(/^FLAGSTAFF_EDGE_KEY must be set/);
    expect(loadEdgeConfig({ ...data, FLAGSTAFF_EDGE_KEY: 'fsk_x' }).edgeCache).toBe('/cache');
  });
});

// Without a renderer the suite above is skipped; this says why in the run's report, and asserts nothing.
if (render === undefined) it.skip('deploy/kubernetes renders with kustomize (install kubectl or kustomize)');
