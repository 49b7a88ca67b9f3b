import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { REPO_ROOT } from './repo';

export type LabelSelector = NonNullable<IDeployment['spec']>['selector'];
export type PodSpec = NonNullable<NonNullable<IDeployment['spec']>['template']['spec']>;
export type Container = PodSpec['containers'][number];

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The model class of each kind the overlays may render; a new kind must be added here. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

export const OVERLAYS_DIR = path.join(REPO_ROOT, 'k8s/overlays');

export function overlays(): string[] {
  return fs
    .readdirSync(OVERLAYS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** `kubectl kustomize k8s/overlays/<overlay>`, parsed into its objects. */
export function render(overlay: string): Manifest[] {
  return renderFolder(path.relative(REPO_ROOT, path.join(OVERLAYS_DIR, overlay)));
}

/** An overlay with a component added, as an overlay of one's own would add it. */
export function renderWithComponent(overlay: string, component: string): Manifest[] {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'overlay-'));
  try {
    const from = (target: string) => path.relative(folder, path.join(REPO_ROOT, target));
    fs.writeFileSync(
      path.join(folder, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'namespace: shortener',
        `resources: [${from(path.join('k8s', 'overlays', overlay))}]`,
        `components: [${from(component)}]`,
      ].join('\n'),
    );
    return renderFolder(path.relative(REPO_ROOT, folder));
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** `kubectl kustomize <folder>` of a kustomization in the repository, parsed into its objects. */
export function renderFolder(folder: string): Manifest[] {
  let output: string;
  try {
    output = execFileSync('kubectl', ['kustomize', path.join(REPO_ROOT, folder)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(
        'kubectl is not installed (or not on PATH): the deployment tests render k8s/ ' +
          'with `kubectl kustomize`. Install kubectl 1.27 or later (it includes kustomize): ' +
          'https://kubernetes.io/docs/tasks/tools/',
      );
    }
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`kubectl kustomize ${folder} failed:\n${stderr}`);
  }
  return parseAllDocuments(output).map((document) => {
    if (document.errors.length > 0) {
      throw new Error(`kubectl kustomize ${folder}: ${document.errors.join('\n')}`);
    }
    return document.toJS() as Manifest;
  });
}

/** A Strimzi KafkaTopic (kafka.strimzi.io/v1beta2), the fields these tests read. */
export interface KafkaTopic extends Manifest {
  spec: { partitions: number; replicas: number; config?: Record<string, string | number> };
}

/** The folder declaring the Kafka topics: the one place their partitions are written. */
export const KAFKA_FOLDER = 'k8s/kafka';

/** The topics k8s/kafka declares, by name. */
export function kafkaTopics(): Map<string, KafkaTopic> {
  const topics = ofKind<Pick<KafkaTopic, 'spec'>>(renderFolder(KAFKA_FOLDER), 'KafkaTopic');
  return new Map(topics.map((topic) => [topic.metadata.name, topic]));
}

/** The partitions of a topic as k8s/kafka declares them. */
export function topicPartitions(name: string): number {
  const partitions = kafkaTopics().get(name)?.spec.partitions;
  if (partitions === undefined) throw new Error(`${KAFKA_FOLDER} declares no KafkaTopic ${name}`);
  return partitions;
}

export function describeObject(object: Manifest): string {
  return `${object.kind}/${object.metadata.name}`;
}

/**
 * kustomize folds long base64 Secret values over several lines; the API server's decoder
 * ignores the line breaks, while the schema's "byte" format does not.
 */
function asTheApiServerReadsIt(object: Manifest): Manifest {
  if (object.kind !== 'Secret' || typeof object['data'] !== 'object') return object;
  const data = Object.entries(object['data'] as Record<string, string>).map(
    ([key, value]) => [key, value.replace(/\s/g, '')] as const,
  );
  return { ...object, data: Object.fromEntries(data) };
}

/** Schema problems of an object, as kubernetes-models reports them; [] when it is valid. */
export function schemaProblems(object: Manifest): string[] {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (Model === undefined) {
    return [`no model for ${object.apiVersion} ${object.kind}: add it to MODELS in ${__filename}`];
  }
  try {
    new Model(asTheApiServerReadsIt(object) as never).validate();
    return [];
  } catch (error) {
    return [`${describeObject(object)}: ${(error as Error).message}`];
  }
}

export function ofKind<T>(objects: readonly Manifest[], kind: string): (Manifest & T)[] {
  return objects.filter((object) => object.kind === kind) as (Manifest & T)[];
}

/** Whether a label selector selects a set of labels (matchLabels and matchExpressions). */
export function selects(selector: LabelSelector, labels: Record<string, string> = {}): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(
    ([key, value]) => labels[key] === value,
  );
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values }) => {
    const value = labels[key];
    switch (operator) {
      case 'In':
        return value !== undefined && (values ?? []).includes(value);
      case 'NotIn':
        return value === undefined || !(values ?? []).includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        throw new Error(`unknown selector operator ${operator}`);
    }
  });
  return byLabels && byExpressions;
}

const BINARY_SUFFIXES: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};
const DECIMAL_SUFFIXES: Record<string, number> = {
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
};

/** A Kubernetes quantity ("250m", "1", "384Mi") as a number of cores or bytes. */
export function quantity(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+(?:\.\d+)?)([A-Za-z]*)$/.exec(value);
  const suffix = match?.[2] ?? '';
  const factor = BINARY_SUFFIXES[suffix] ?? DECIMAL_SUFFIXES[suffix];
  if (!match || factor === undefined) throw new Error(`not a quantity: ${value}`);
  return Number(match[1]) * factor;
}
