import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSecadminClient } from '../src/index.js';

/** The reference's samples (written into the bundle by spec/scripts/code-samples.mjs). */
interface Sample {
  lang: string;
  source: string;
}
const spec = JSON.parse(
  readFileSync(new URL('../../../spec/dist/openapi.json', import.meta.url), 'utf8'),
) as {
  paths: Record<
    string,
    Record<string, { operationId: string; parameters?: Parameter[]; 'x-codeSamples'?: Sample[] }>
  >;
  components: { parameters: Record<string, Parameter> };
};
interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
}
const resolveParameter = (p: Parameter): Parameter =>
  p.$ref ? (spec.components.parameters[p.$ref.split('/').pop() ?? ''] as Parameter) : p;
const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => method !== 'parameters')
    .map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);

describe('the code samples of the reference', () => {
  it.each(operations)(
    '$method $path: the sample sends the required query parameters and the page size, no filter',
    ({ op }) => {
      const [curl] = op['x-codeSamples'] ?? [];
      const url = new URL(/curl (?:-X \w+ )?'([^']+)'/.exec(curl?.source ?? '')?.[1] ?? '');
      const required = (op.parameters ?? [])
        .map((p) => resolveParameter(p))
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => p.name);
      expect([...url.searchParams.keys()].filter((name) => name !== 'limit').sort()).toEqual(
        required.sort(),
      );
    },
  );

  it.each(operations)(
    '$method $path: the TypeScript sample sends what the curl one does',
    async ({ method, op }) => {
      const samples = op['x-codeSamples'] ?? [];
      expect(samples.map((s) => s.lang)).toEqual(['curl', 'TypeScript']);
      const [curl, typescript] = samples as [Sample, Sample];
      const call = /const result = await (client\.[\s\S]+);$/.exec(typescript.source)?.[1];
      expect(call).toBeDefined();

      const requests: Request[] = [];
      const client = createSecadminClient({
        baseUrl: 'http://localhost:3000',
        apiKey: 'sk_samplesamplesamplesamplesamplesample',
        fetch: async (req: Request) => {
          requests.push(req.clone());
          return new Response(JSON.stringify({ data: {}, pagination: {}, meta: {} }), {
            headers: { 'content-type': 'application/json' },
          });
        },
      });
      await new Function('client', `return ${call}`)(client);

      const request = requests[0] as Request;
      const curlUrl = /curl (?:-X \w+ )?'([^']+)'/.exec(curl.source)?.[1] as string;
      expect(request.method).toBe(method);
      expect(decodeURIComponent(request.url)).toBe(decodeURIComponent(curlUrl));
      const curlBody = /-d '([\s\S]+)'$/.exec(curl.source)?.[1];
      expect(request.body ? await request.json() : undefined).toEqual(
        curlBody ? JSON.parse(curlBody) : undefined,
      );
    },
  );
});
