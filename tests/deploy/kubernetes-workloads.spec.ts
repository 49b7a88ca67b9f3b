import { READINESS_CHECK_TIMEOUT_MS } from '@shortener/chassis';
import type { IService, IServiceAccount } from 'kubernetes-models/v1';
import { describeObject, ofKind, overlays, quantity, schemaProblems } from './support/kubernetes';
import {
  allContainers,
  containerPort,
  OPS_PORT_NAME,
  podSpec,
  renderedOverlay,
} from './support/overlay';
import { isService, SERVICES, serviceSpec } from './support/repo';

// Each test lists every problem it finds (expect(problems).toEqual([])), so one run names
// all that is wrong, with the object it is wrong in.

describe.each(overlays())(
  'the %s overlay: its workloads, their ports, probes, resources and privileges',
  (overlay) => {
    const rendered = renderedOverlay(overlay);
    const {
      find,
      deploymentOf,
      selectedDeployments,
      podTemplates,
      environmentOf,
      serviceEnvironment,
    } = rendered;

    it('renders only objects that are valid against the Kubernetes schemas', () => {
      expect(rendered.objects.length).toBeGreaterThan(0);
      expect(rendered.objects.flatMap(schemaProblems)).toEqual([]);
    });

    it('puts every object in the overlay’s namespace', () => {
      const namespaces = ofKind(rendered.objects, 'Namespace').map(
        (namespace) => namespace.metadata.name,
      );
      expect(namespaces).toHaveLength(1);
      const elsewhere = rendered.objects
        .filter((object) => object.kind !== 'Namespace')
        .filter((object) => object.metadata.namespace !== namespaces[0])
        .map(describeObject);
      expect(elsewhere).toEqual([]);
    });

    it('deploys every service and the web app', () => {
      const names = rendered.deployments.map((deployment) => deployment.metadata.name).sort();
      expect(names).toEqual([...SERVICES, 'frontend'].sort());
    });

    it('runs each service on its listed port, behind a Service of its name on that port', () => {
      const problems: string[] = [];
      for (const name of SERVICES) {
        const { port } = serviceSpec(name);
        const container = podSpec(deploymentOf(name)).containers[0]!;
        const env = serviceEnvironment(name, problems);
        if (containerPort(container, 'http') !== port) {
          problems.push(`${name}: container port http is ${containerPort(container, 'http')}`);
        }
        if (env.get('PORT') !== String(port)) problems.push(`${name}: PORT=${env.get('PORT')}`);
        const service = find<IService>('Service', name);
        const http = service?.spec?.ports?.find((candidate) => candidate.name === 'http');
        if (http?.port !== port || http.targetPort !== 'http') {
          problems.push(`Service/${name}: http is ${http?.port} -> ${http?.targetPort}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('tells every service where the services it calls are: their Service name and listed port', () => {
      const problems: string[] = [];
      for (const name of SERVICES) {
        const env = serviceEnvironment(name, problems);
        for (const callee of serviceSpec(name).calls.map(serviceSpec)) {
          const expected = `http://${callee.name}:${callee.port}`;
          const given = env.get(callee.urlVariable ?? '');
          if (given !== expected) problems.push(`${name}: ${callee.urlVariable}=${given}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('probes /healthz for liveness and start-up, /readyz for readiness, on a declared port (a service’s ops port)', () => {
      const problems: string[] = [];
      for (const deployment of rendered.deployments) {
        const service = isService(deployment.metadata.name);
        for (const container of podSpec(deployment).containers) {
          const where = `${describeObject(deployment)} ${container.name}`;
          const probes = {
            liveness: [container.livenessProbe?.httpGet, '/healthz'],
            startup: [container.startupProbe?.httpGet, '/healthz'],
            readiness: [container.readinessProbe?.httpGet, '/readyz'],
          } as const;
          for (const [kind, [probe, path]] of Object.entries(probes)) {
            if (probe?.path !== path) problems.push(`${where}: ${kind} probe is not GET ${path}`);
            else if (containerPort(container, probe.port) === undefined) {
              problems.push(`${where}: ${kind} probe port ${probe.port} is not a container port`);
            } else if (
              service &&
              containerPort(container, probe.port) !== containerPort(container, OPS_PORT_NAME)
            ) {
              problems.push(`${where}: ${kind} probe port ${probe.port} is not the ops port`);
            }
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('gives a readiness probe twice the time a round of checks can take, so a hanging dependency does not time it out', () => {
      const problems: string[] = [];
      for (const deployment of rendered.deployments) {
        if (!isService(deployment.metadata.name)) continue;
        for (const container of podSpec(deployment).containers) {
          // Kubernetes' default when unset: 1 s.
          const timeoutMs = (container.readinessProbe?.timeoutSeconds ?? 1) * 1000;
          if (timeoutMs < 2 * READINESS_CHECK_TIMEOUT_MS) {
            problems.push(
              `${describeObject(deployment)} ${container.name}: readiness probe times out after ` +
                `${timeoutMs} ms, a round of checks may take ${READINESS_CHECK_TIMEOUT_MS} ms`,
            );
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('serves each service’s /readyz and /metrics on its ops port (OPS_PORT), where Prometheus scrapes', () => {
      const problems: string[] = [];
      for (const deployment of rendered.deployments) {
        if (!isService(deployment.metadata.name)) continue;
        const where = describeObject(deployment);
        const container = podSpec(deployment).containers[0]!;
        const opsPort = containerPort(container, OPS_PORT_NAME);
        const environment = environmentOf(podSpec(deployment), container, problems);
        if (opsPort === undefined)
          problems.push(`${where}: no container port named ${OPS_PORT_NAME}`);
        else if (opsPort === containerPort(container, 'http')) {
          problems.push(`${where}: the ops port is the service's own port`);
        }
        if (environment.get('OPS_PORT') !== String(opsPort)) {
          problems.push(
            `${where}: OPS_PORT=${environment.get('OPS_PORT')}, the ops port is ${opsPort}`,
          );
        }
        const annotations = deployment.spec!.template.metadata?.annotations ?? {};
        const scrape = [
          annotations['prometheus.io/scrape'],
          annotations['prometheus.io/port'],
          annotations['prometheus.io/path'],
        ];
        if (scrape.join(' ') !== `true ${opsPort} /metrics`) {
          problems.push(
            `${where}: Prometheus scrapes ${scrape.join(' ')}, not /metrics on ${opsPort}`,
          );
        }
      }
      expect(problems).toEqual([]);
    });

    it('gives every container CPU and memory requests and limits, requests within limits', () => {
      const problems: string[] = [];
      for (const { owner, spec } of podTemplates()) {
        for (const container of allContainers(spec)) {
          const { requests = {}, limits = {} } = container.resources ?? {};
          for (const resource of ['cpu', 'memory']) {
            const request = requests[resource];
            const limit = limits[resource];
            if (request === undefined || limit === undefined) {
              problems.push(`${owner} ${container.name}: no ${resource} request or limit`);
            } else if (quantity(request) > quantity(limit)) {
              problems.push(
                `${owner} ${container.name}: ${resource} request ${request} > ${limit}`,
              );
            }
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('reserves the redirect’s whole memory limit: a queue filled while Kafka is away must not get it evicted', () => {
      const { requests = {}, limits = {} } =
        podSpec(deploymentOf('redirect')).containers[0]!.resources ?? {};
      expect(requests['memory']).toBeDefined();
      expect(quantity(requests['memory']!)).toBe(quantity(limits['memory'] ?? 0));
    });

    it('gives the redirect a spool that outlives its container: an emptyDir at VISIT_SPOOL_DIR, larger than the spool may grow', () => {
      const spec = podSpec(deploymentOf('redirect'));
      const container = spec.containers[0]!;
      const folder = container.env?.find((variable) => variable.name === 'VISIT_SPOOL_DIR')?.value;
      const mount = container.volumeMounts?.find((volume) => volume.mountPath === folder);
      const volume = spec.volumes?.find((candidate) => candidate.name === mount?.name);
      expect(folder).toMatch(/^\//);
      expect(mount?.readOnly).not.toBe(true);
      expect(volume?.emptyDir).toBeDefined();
      // The spool's default limit (VISIT_SPOOL_MAX_BYTES), which no overlay raises.
      expect(quantity(volume!.emptyDir!.sizeLimit!)).toBeGreaterThan(256 * 1024 * 1024);
    });

    it('runs every container as a numeric non-root user, read-only, without privileges', () => {
      const problems: string[] = [];
      for (const { owner, spec } of podTemplates()) {
        const pod = spec.securityContext ?? {};
        for (const container of allContainers(spec)) {
          const own = container.securityContext ?? {};
          const where = `${owner} ${container.name}`;
          const checks: [boolean, string][] = [
            [(own.runAsNonRoot ?? pod.runAsNonRoot) === true, 'runAsNonRoot is not true'],
            [(own.runAsUser ?? pod.runAsUser ?? 0) > 0, 'no numeric non-root runAsUser'],
            [
              (own.seccompProfile ?? pod.seccompProfile)?.type === 'RuntimeDefault',
              'seccompProfile is not RuntimeDefault',
            ],
            [own.readOnlyRootFilesystem === true, 'root file system is writable'],
            [own.allowPrivilegeEscalation === false, 'privilege escalation is allowed'],
            [own.privileged !== true, 'privileged'],
            [own.capabilities?.drop?.includes('ALL') === true, 'capabilities are not all dropped'],
            [(own.capabilities?.add ?? []).length === 0, 'capabilities are added'],
          ];
          for (const [ok, problem] of checks) if (!ok) problems.push(`${where}: ${problem}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('gives every pod its own service account, without an API token', () => {
      const problems: string[] = [];
      for (const { owner, spec } of podTemplates()) {
        const account = find<IServiceAccount>('ServiceAccount', spec.serviceAccountName ?? '');
        if (!account) problems.push(`${owner}: no ServiceAccount of its own`);
        if (
          spec.automountServiceAccountToken !== false ||
          account?.automountServiceAccountToken !== false
        ) {
          problems.push(`${owner}: the service account token is mounted`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('points every Service at the pods of one Deployment, on a port they expose', () => {
      const problems: string[] = [];
      for (const service of ofKind<IService>(rendered.objects, 'Service')) {
        const where = describeObject(service);
        const selected = selectedDeployments({ matchLabels: service.spec?.selector ?? {} });
        if (selected.length !== 1) {
          problems.push(`${where} selects ${selected.length} Deployments`);
          continue;
        }
        const container = podSpec(selected[0]!).containers[0]!;
        for (const port of service.spec?.ports ?? []) {
          if (containerPort(container, port.targetPort ?? port.port) === undefined) {
            problems.push(`${where}: target port ${port.targetPort} is not a container port`);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  },
);
