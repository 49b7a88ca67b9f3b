import { internalApi, internalPath, type InternalEndpoint } from './internal-api';

const endpoints: readonly InternalEndpoint[] = Object.values(internalApi);

describe('internalPath', () => {
  it('fills the route parameters, percent-encoded, and adds the defined query values', () => {
    expect(
      internalPath('/internal/visits/:code', { code: 'a b/c' }, { limit: 50, cursor: undefined }),
    ).toBe('/internal/visits/a%20b%2Fc?limit=50');
    expect(internalPath('/internal/links')).toBe('/internal/links');
  });

  it('refuses a route parameter without a value, and a query value that is not a scalar', () => {
    expect(() => internalPath('/internal/links/:code', {})).toThrow(/no value for :code/);
    expect(() => internalPath('/internal/links', {}, { codes: ['a'] })).toThrow(/codes/);
  });
});

describe('internalApi', () => {
  it('lists each route of a service once per method', () => {
    const calls = endpoints.map(
      (endpoint) => `${endpoint.service} ${endpoint.method} ${endpoint.route}`,
    );
    expect(new Set(calls).size).toBe(calls.length);
  });

  it('gives every refusal it lists a message', () => {
    for (const endpoint of endpoints) {
      for (const [status, schema] of Object.entries(endpoint.answers)) {
        if (Number(status) < 400) continue;
        expect(schema.safeParse({}).success).toBe(false);
        expect(schema.safeParse({ message: 'why' }).success).toBe(true);
      }
    }
  });
});
