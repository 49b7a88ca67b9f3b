// Lints an OpenAPI description with Redocly's `recommended` rules and Spectral's `spectral:oas`
// recommended rules, the two rule sets API tooling applies; prints every problem as JSON.
// Usage: node tests/deploy/support/lint-openapi.mjs < openapi.json
// A separate process because @redocly/openapi-core is an ES module, which Jest's CommonJS
// runtime cannot load.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralRulesets from '@stoplight/spectral-rulesets';

const { Spectral } = spectralCore;
const { oas } = spectralRulesets;

/** Spectral's numeric severities (DiagnosticSeverity), as the problems name them. */
const SPECTRAL_SEVERITIES = ['error', 'warn', 'info', 'hint'];

/** A JSON pointer as a list of keys: '#/paths/~1api~1user' -> ['paths', '/api/user']. */
function keys(pointer) {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((key) => key !== '')
    .map((key) => decodeURIComponent(key).replaceAll('~1', '/').replaceAll('~0', '~'));
}

async function redocly(source) {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((problem) => ({
    linter: 'redocly',
    rule: problem.ruleId,
    severity: problem.severity,
    path: keys(problem.location[0]?.pointer ?? '#'),
    message: problem.message,
  }));
}

async function spectral(source) {
  const linter = new Spectral();
  linter.setRuleset({ extends: [[oas, 'recommended']] });
  // Spectral reads a string as YAML, of which JSON is a subset.
  const problems = await linter.run(source);
  return problems.map((problem) => ({
    linter: 'spectral',
    rule: String(problem.code),
    severity: SPECTRAL_SEVERITIES[problem.severity],
    path: problem.path.map(String),
    message: problem.message,
  }));
}

let source = '';
for await (const chunk of process.stdin) source += chunk;
const problems = [...(await redocly(source)), ...(await spectral(source))];
process.stdout.write(JSON.stringify(problems));
