import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { IConfigMap, ISecret } from 'kubernetes-models/v1';
import { describeObject, ofKind, overlays, selects, topicPartitions } from './support/kubernetes';
import {
  allContainers,
  podLabels,
  podSpec,
  renderedOverlay,
  type Deployment,
} from './support/overlay';
import { MIGRATING_SERVICES, repoPathExists, serviceSpec } from './support/repo';

// Each test lists every problem it finds (expect(problems).toEqual([])), so one run names
// all that is wrong, with the object it is wrong in.

/** The release a pod belongs to (the Kubernetes recommended label). */
const RELEASE_LABEL = 'app.kubernetes.io/version';

/** An autoscaler waits this long after load falls before it removes any replica... */
const MIN_SCALE_DOWN_WINDOW_SECONDS = 300;
/** ...and then removes at most this share of its maximum a minute (at least one pod). */
const MAX_SCALE_DOWN_SHARE_PER_MINUTE = 0.1;

describe.each(overlays())(
  'the %s overlay: replicas, scaling, disruption and releases',
  (overlay) => {
    const rendered = renderedOverlay(overlay);
    const { find, deploymentOf, podTemplates, serviceEnvironment } = rendered;

    it('autoscales the gateway and redirect on CPU, and leaves their replica count to it', () => {
      const autoscalers = ofKind<IHorizontalPodAutoscaler>(
        rendered.objects,
        'HorizontalPodAutoscaler',
      );
      const targets = autoscalers.map((hpa) => hpa.spec!.scaleTargetRef.name).sort();
      expect(targets).toEqual(['gateway', 'redirect']);
      const problems: string[] = [];
      for (const hpa of autoscalers) {
        const { scaleTargetRef, minReplicas = 1, maxReplicas, metrics = [] } = hpa.spec!;
        const where = describeObject(hpa);
        if (scaleTargetRef.kind !== 'Deployment') problems.push(`${where}: not a Deployment`);
        if (deploymentOf(scaleTargetRef.name).spec!.replicas !== undefined) {
          problems.push(`${where}: its Deployment sets replicas, fighting the autoscaler`);
        }
        if (!(minReplicas >= 1 && maxReplicas > minReplicas)) {
          problems.push(`${where}: replicas from ${minReplicas} to ${maxReplicas}`);
        }
        if (!metrics.some((metric) => metric.resource?.name === 'cpu')) {
          problems.push(`${where}: does not scale on CPU`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('spreads the gateway and redirect over zones and nodes, each revision on its own, without blocking a pod', () => {
      const spreads: Record<string, string[]> = {};
      for (const name of ['gateway', 'redirect']) {
        const deployment = deploymentOf(name);
        spreads[name] = (podSpec(deployment).topologySpreadConstraints ?? [])
          .map((constraint) =>
            [
              constraint.topologyKey,
              constraint.whenUnsatisfiable,
              `skew ${constraint.maxSkew}`,
              selects(constraint.labelSelector ?? {}, podLabels(deployment))
                ? 'its pods'
                : 'other pods',
              `by ${(constraint.matchLabelKeys ?? []).join()}`,
            ].join(' '),
          )
          .sort();
      }
      const expected = [
        'kubernetes.io/hostname ScheduleAnyway skew 1 its pods by pod-template-hash',
        'topology.kubernetes.io/zone ScheduleAnyway skew 1 its pods by pod-template-hash',
      ];
      expect(spreads).toEqual({ gateway: expected, redirect: expected });
    });

    it('scales down slowly, so that an outage (CPU falls with traffic) does not become a mass shutdown', () => {
      const problems: string[] = [];
      for (const hpa of ofKind<IHorizontalPodAutoscaler>(
        rendered.objects,
        'HorizontalPodAutoscaler',
      )) {
        const where = describeObject(hpa);
        const scaleDown = hpa.spec!.behavior?.scaleDown;
        const { maxReplicas } = hpa.spec!;
        if ((scaleDown?.stabilizationWindowSeconds ?? 0) < MIN_SCALE_DOWN_WINDOW_SECONDS) {
          problems.push(`${where}: scale-down window ${scaleDown?.stabilizationWindowSeconds}s`);
        }
        // Without policies Kubernetes may remove every replica above the minimum at once.
        const policies = scaleDown?.policies ?? [];
        if (policies.length === 0) problems.push(`${where}: no scale-down policies`);
        if (scaleDown?.selectPolicy === 'Disabled') continue;
        for (const { type, value, periodSeconds } of policies) {
          // Kubernetes rounds a percentage of the replicas up, as this does.
          const pods = type === 'Percent' ? Math.ceil((maxReplicas * value) / 100) : value;
          const perMinute = (pods * 60) / periodSeconds;
          if (perMinute > Math.max(1, Math.ceil(maxReplicas * MAX_SCALE_DOWN_SHARE_PER_MINUTE))) {
            problems.push(`${where}: a ${type} policy removes ${perMinute} pods a minute`);
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('covers every Deployment with one PodDisruptionBudget', () => {
      const budgets = ofKind<IPodDisruptionBudget>(rendered.objects, 'PodDisruptionBudget');
      const uncovered = rendered.deployments
        .filter(
          (deployment) =>
            budgets.filter((budget) => selects(budget.spec!.selector!, podLabels(deployment)))
              .length !== 1,
        )
        .map(describeObject);
      expect(uncovered).toEqual([]);
    });

    it('migrates auth, links and analytics in a Job with the Deployments’ images, not at start-up', () => {
      const jobs = ofKind<IJob>(rendered.objects, 'Job');
      expect(jobs).toHaveLength(1);
      const containers = jobs[0]!.spec!.template.spec!.containers;
      const problems: string[] = [];
      for (const service of MIGRATING_SERVICES) {
        // The image runs in its service's folder; the Job names the program in full.
        const entryPoint = `/app/services/${service}/${serviceSpec(service).migrate}`;
        const container = containers.find((candidate) => candidate.command?.includes(entryPoint));
        const serviceContainer = podSpec(deploymentOf(service)).containers[0]!;
        if (!container) problems.push(`the Job does not run ${entryPoint}`);
        else if (container.image !== serviceContainer.image) {
          problems.push(`${entryPoint} runs in ${container.image}, not ${serviceContainer.image}`);
        }
        if (!repoPathExists(`services/${service}/src/migrate.ts`)) {
          problems.push(`services/${service}/src/migrate.ts does not exist`);
        }
        const migrates = serviceEnvironment(service, problems).get('DB_MIGRATE');
        if (migrates !== 'false') problems.push(`${service} runs with DB_MIGRATE=${migrates}`);
      }
      expect(problems).toEqual([]);
    });

    const replicasAtRest = (deployment: Deployment): number | undefined => {
      const hpa = find<IHorizontalPodAutoscaler>(
        'HorizontalPodAutoscaler',
        deployment.metadata.name,
      );
      return hpa?.spec?.minReplicas ?? deployment.spec!.replicas;
    };

    if (overlay === 'dev') {
      it('runs one replica of each from locally built images, with fake secrets', () => {
        const problems: string[] = [];
        for (const deployment of rendered.deployments) {
          const where = describeObject(deployment);
          const replicas = replicasAtRest(deployment);
          if (replicas !== 1) problems.push(`${where}: ${replicas} replicas at rest`);
          const image = podSpec(deployment).containers[0]!.image ?? '';
          if (!/^shortener-[a-z]+:dev$/.test(image)) problems.push(`${where}: image ${image}`);
        }
        for (const secret of ofKind<ISecret>(rendered.objects, 'Secret')) {
          for (const [key, value] of Object.entries(secret.data ?? {})) {
            if (!Buffer.from(value, 'base64').toString().includes('dev-only-fake')) {
              problems.push(`${describeObject(secret)} ${key} is not marked dev-only-fake`);
            }
          }
        }
        expect(problems).toEqual([]);
      });

      it('says it is not production (NODE_ENV=development), since production refuses dev-only values', () => {
        const configMaps = ofKind<IConfigMap>(rendered.objects, 'ConfigMap');
        expect(configMaps.map((configMap) => configMap.data?.['NODE_ENV'])).toEqual([
          'development',
        ]);
        const secret = ofKind<ISecret>(rendered.objects, 'Secret')[0]!;
        expect(Object.keys(secret.data ?? {}).sort()).toEqual([
          'DATABASE_URL',
          'INTERNAL_API_SECRET',
          'KAFKA_ANALYTICS_PASSWORD',
          'KAFKA_REDIRECT_PASSWORD',
          'REDIS_URL',
        ]);
      });
    }

    if (overlay === 'production') {
      it('runs several replicas of each, every image pinned by digest in a registry, and renders no Secret', () => {
        const problems: string[] = [];
        for (const deployment of rendered.deployments) {
          const where = describeObject(deployment);
          const replicas = replicasAtRest(deployment) ?? 1;
          if (replicas < 2) problems.push(`${where}: ${replicas} replica at rest`);
        }
        // A registry, a name and a digest: the bytes tested, not whatever a tag names today.
        for (const { owner, spec } of podTemplates()) {
          for (const { name, image = '' } of allContainers(spec)) {
            if (!/^[a-z0-9.-]+\.[a-z]+(:\d+)?\/[^:@]+@sha256:[0-9a-f]{64}$/.test(image)) {
              problems.push(`${owner} ${name}: image ${image} is not pinned by digest`);
            }
          }
        }
        // Consumers beyond the visits topic's partitions would sit idle.
        const analytics = deploymentOf('analytics').spec!.replicas ?? 1;
        const partitions = topicPartitions('visits');
        if (analytics > partitions) {
          problems.push(`analytics: ${analytics} consumers for ${partitions} partitions`);
        }
        expect(problems).toEqual([]);
        expect(ofKind(rendered.objects, 'Secret')).toEqual([]);
      });

      it('names the migration Job after the release its pods carry, so each release applies a Job of its own', () => {
        const jobs = ofKind<IJob>(rendered.objects, 'Job');
        const release = jobs[0]?.metadata.labels?.[RELEASE_LABEL];
        expect(release).toMatch(/^[\w.-]+$/);
        expect(jobs.map((job) => job.metadata.name)).toEqual([`migrate-${release}`]);
        const templates = [
          ...rendered.deployments.map((deployment) => [deployment, podLabels(deployment)] as const),
          ...jobs.map((job) => [job, job.spec!.template.metadata?.labels ?? {}] as const),
        ];
        const others = templates
          .filter(([, labels]) => labels[RELEASE_LABEL] !== release)
          .map(([owner]) => describeObject(owner));
        expect(others).toEqual([]);
      });

      it('runs as production (the images’ NODE_ENV) and carries no dev-only value', () => {
        for (const configMap of ofKind<IConfigMap>(rendered.objects, 'ConfigMap')) {
          expect(configMap.data?.['NODE_ENV']).toBeUndefined();
        }
        expect(JSON.stringify(rendered.objects)).not.toMatch(/dev-only/i);
      });
    }
  },
);
