import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config.ts';

const BASE = join(import.meta.dirname, '../../deploy/kubernetes');

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

describe.skipIf(render === undefined)(
  'the Kubernetes base in deploy/kubernetes, as kustomize renders it',
  () => {
    const manifests = (): Manifest[] => {
      const [command, ...args] = render as string[];
      const text = execFileSync(command as string, [...args, BASE], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return parseAllDocuments(text).map((document) => document.toJS());
    };
    const all = render === undefined ? [] : manifests();
    const one = (kind: string) => {
      const found = all.filter((manifest) => manifest.kind === kind);
      expect(found, kind).toHaveLength(1);
      return found[0];
    };
    const deployment = () => one('Deployment');
    const container = () => deployment().spec.template.spec.containers[0];
    const env = () => ({ ...one('ConfigMap').data, ...one('Secret').stringData });

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
      expect(readFileSync(join(BASE, '../../Dockerfile'), 'utf8')).toMatch(/^VOLUME \/data$/m);
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
      expect(() => loadConfig(env())).not.toThrow();
    });
  },
);

describe.skipIf(render !== undefined)('deploy/kubernetes (install kubectl or kustomize to render it)', () => {
  it('renders with kustomize', () => {});
});
