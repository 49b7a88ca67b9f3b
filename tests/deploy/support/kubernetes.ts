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

/** A Gateway API Duration (GEP-2257), as the HTTPRoute CRD's pattern has it. */
const GATEWAY_DURATION = /^([0-9]{1,5}(h|m|s|ms)){1,4}$/;

/**
 * The fields of a Gateway API v1 HTTPRoute that the overlays may use, by where they sit
 * (sigs.k8s.io/gateway-api apis/v1/httproute_types.go and shared_types.go). The CRD's own
 * schema accepts fields it does not know and drops them in silence, so a field spelt wrong
 * would leave a route without its timeout: anything not listed here is a problem.
 */
const HTTP_ROUTE_FIELDS: Record<string, readonly string[]> = {
  spec: ['parentRefs', 'hostnames', 'rules'],
  'spec.parentRefs': ['group', 'kind', 'namespace', 'name', 'sectionName', 'port'],
  'spec.rules': ['name', 'matches', 'filters', 'backendRefs', 'timeouts'],
  'spec.rules.matches': ['path', 'headers', 'queryParams', 'method'],
  'spec.rules.matches.path': ['type', 'value'],
  'spec.rules.backendRefs': ['group', 'kind', 'name', 'namespace', 'port', 'weight', 'filters'],
  'spec.rules.filters': ['type', 'requestHeaderModifier', 'responseHeaderModifier'],
  'spec.rules.filters.responseHeaderModifier': ['set', 'add', 'remove'],
  'spec.rules.filters.requestHeaderModifier': ['set', 'add', 'remove'],
  'spec.rules.timeouts': ['request', 'backendRequest'],
};

/** Gateway API v1 HTTPRoute, checked field by field (no model of it in kubernetes-models). */
class HTTPRoute {
  constructor(private readonly data: Manifest & { spec?: unknown }) {}

  validate(): void {
    const problems: string[] = [];
    const walk = (value: unknown, where: string): void => {
      if (Array.isArray(value)) {
        for (const item of value) walk(item, where);
        return;
      }
      const allowed = HTTP_ROUTE_FIELDS[where];
      if (allowed === undefined || typeof value !== 'object' || value === null) return;
      for (const [key, field] of Object.entries(value)) {
        if (!allowed.includes(key)) problems.push(`${where}.${key} is not an HTTPRoute field`);
        else walk(field, `${where}.${key}`);
      }
    };
    walk(this.data.spec, 'spec');
    const spec = (this.data.spec ?? {}) as {
      parentRefs?: { name?: string }[];
      rules?: {
        matches?: { path?: { type?: string; value?: string } }[];
        backendRefs?: { name?: string; port?: unknown }[];
        timeouts?: Record<string, unknown>;
      }[];
    };
    if (!spec.parentRefs?.every((parent) => typeof parent.name === 'string')) {
      problems.push('spec.parentRefs: each needs a name');
    }
    for (const rule of spec.rules ?? []) {
      for (const { path } of rule.matches ?? []) {
        if (path && !['Exact', 'PathPrefix', 'RegularExpression'].includes(path.type ?? '')) {
          problems.push(`path type ${path.type}`);
        }
        if (path && !path.value?.startsWith('/')) problems.push(`path ${path.value}`);
      }
      for (const backend of rule.backendRefs ?? []) {
        // A Service's port by number: Gateway API has no port names.
        if (!Number.isInteger(backend.port))
          problems.push(`${backend.name}: port ${String(backend.port)}`);
      }
      for (const [name, value] of Object.entries(rule.timeouts ?? {})) {
        if (typeof value !== 'string' || !GATEWAY_DURATION.test(value)) {
          problems.push(`timeouts.${name}: ${String(value)} is not a Gateway API Duration`);
        }
      }
    }
    if (problems.length > 0) throw new Error(problems.join('; '));
  }
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
  'gateway.networking.k8s.io/v1/HTTPRoute': HTTPRoute,
};

const OVERLAYS_DIR = path.join(REPO_ROOT, 'k8s/overlays');

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

/**
 * An overlay with a component added inside it (`components:` in its own kustomization), as its
 * documentation tells an operator to add one: the overlay's own patches then apply to what the
 * component adds. Rendered from a copy of the overlay's folder.
 */
export function renderWithComponentInside(overlay: string, component: string): Manifest[] {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'overlay-'));
  try {
    const source = path.join(OVERLAYS_DIR, overlay);
    fs.cpSync(source, folder, { recursive: true });
    // Paths to the rest of k8s/ as seen from the copy.
    const fromCopy = (target: string) =>
      path.relative(folder, path.resolve(source, target)).split(path.sep).join('/');
    const file = path.join(folder, 'kustomization.yaml');
    const kustomization = fs
      .readFileSync(file, 'utf8')
      .replace(
        /^(\s+- )(\.\.\/\S+)$/gm,
        (_line, item: string, target: string) => item + fromCopy(target),
      );
    if (/^components:/m.test(kustomization)) {
      throw new Error(`k8s/overlays/${overlay} has components already: add ${component} there`);
    }
    fs.writeFileSync(
      file,
      `${kustomization}\ncomponents:\n  - ${fromCopy(path.join(REPO_ROOT, component))}\n`,
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
