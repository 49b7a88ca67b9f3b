// Writes k8s/components/monitoring/prometheus-rule.yaml, the Prometheus Operator's copy of
// the alert rules, from the rules file beside it (alerts.yml, the one that is edited).
//   node scripts/monitoring.mjs           write it
//   node scripts/monitoring.mjs --check   exit 1 if it is not what alerts.yml gives
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folder = path.join(root, 'k8s', 'components', 'monitoring');
const target = path.join(folder, 'prometheus-rule.yaml');

/** The PrometheusRule that carries alerts.yml's groups, as this script writes it. */
export function prometheusRule() {
  const rules = parse(readFileSync(path.join(folder, 'alerts.yml'), 'utf8'));
  const resource = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'url-shortener' },
    spec: { groups: rules.groups },
  };
  return (
    '# Written by `node scripts/monitoring.mjs` from alerts.yml: edit that file, not this one.\n' +
    stringify(resource, { lineWidth: 0, singleQuote: true })
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = prometheusRule();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // Missing: not up to date either.
    }
    if (current !== written) {
      console.error(
        `${path.relative(root, target)} is not up to date: run node scripts/monitoring.mjs`,
      );
      process.exit(1);
    }
  } else {
    writeFileSync(target, written);
    console.log(`wrote ${path.relative(root, target)}`);
  }
}
