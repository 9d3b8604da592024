// One pure module, imported by the server (the document's `x-codeSamples`) and by the reference's browser
// bundle (the try-it panel's samples, with the reader's key in them): the two can never disagree. It reads
// the served OpenAPI document as JSON, so it imports nothing and uses neither Node nor DOM APIs.

type Json = Record<string, unknown>;

/** A request of one operation as a reader would send it: every value already a string but the body's text. */
export interface SampleRequest {
  operationId: string;
  method: string;
  /** The path below the server's base address, in OpenAPI form (`/pets/{petId}`). */
  path: string;
  pathParams: Record<string, string>;
  /** Query parameters; an empty value is left out of the request. */
  query: Record<string, string>;
  /** The JSON body's text, or undefined when the operation takes none. */
  body?: string;
  /** The `Idempotency-Key` of a POST; empty: none is sent. */
  idempotencyKey?: string;
}

/** A code sample as Redoc's `x-codeSamples` lists it. */
export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** Where the samples send the request and with which key. */
export interface SampleTarget {
  /** The API's base address, such as `https://api.example.com/v1`. */
  baseUrl: string;
  /** The reader's key, or undefined to read it from the `PETSTORE_KEY` environment variable. */
  key?: string | undefined;
}

/** The environment variable the samples read the key from. */
export const KEY_VARIABLE = 'PETSTORE_KEY';

/** The typed client's methods whose first argument is the query (the others take none). */
const CLIENT_QUERY_METHODS = new Set(['listPets', 'listOrders']);

/** Follows a local `$ref` (`#/components/schemas/Pet`) to what it names. */
function resolve(document: Json, value: unknown): Json {
  let current = value as Json;
  while (typeof current?.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, part) => (node as Json | undefined)?.[part], document) as Json;
  }
  return current ?? {};
}

/** An example value of a schema: its first example, else its default, else the first of its enum. */
function exampleOf(document: Json, schemaOrRef: unknown): unknown {
  const schema = resolve(document, schemaOrRef);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'object' || schema.properties !== undefined) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const result: Json = {};
    for (const [name, property] of Object.entries((schema.properties as Json | undefined) ?? {})) {
      const resolved = resolve(document, property);
      // Optional fields appear only when the document shows an example of them: a sample should run as is.
      if (!required.has(name) && resolved.examples === undefined) continue;
      result[name] = exampleOf(document, property);
    }
    return result;
  }
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return false;
  if (schema.type === 'array') return [];
  return '';
}

/**
 * The request of an operation prefilled from the document's examples: every path parameter, the required
 * query parameters (the optional ones empty: an example cursor would name nothing), and the body.
 */
export function exampleRequest(document: Json, path: string, method: string): SampleRequest {
  const operation = resolve(document, (document.paths as Json)[path]) as Json;
  const object = operation[method.toLowerCase()] as Json;
  const request: SampleRequest = {
    operationId: String(object.operationId),
    method: method.toUpperCase(),
    path,
    pathParams: {},
    query: {},
  };
  for (const reference of (object.parameters as unknown[] | undefined) ?? []) {
    const parameter = resolve(document, reference);
    const name = String(parameter.name);
    if (parameter.in === 'path') request.pathParams[name] = String(exampleOf(document, parameter.schema));
    else if (parameter.in === 'query')
      request.query[name] = parameter.required ? String(exampleOf(document, parameter.schema)) : '';
    else if (parameter.in === 'header' && name === 'Idempotency-Key') request.idempotencyKey = '';
  }
  const body = resolve(document, object.requestBody).content as Json | undefined;
  const schema = (body?.['application/json'] as Json | undefined)?.schema;
  if (schema !== undefined) request.body = JSON.stringify(exampleOf(document, schema), null, 2);
  return request;
}

/** The path and query of a request, below the base address: `/pets/1?status=available`. */
export function requestTarget(request: SampleRequest): string {
  const path = request.path.replace(/\{([^}]+)\}/g, (_whole, name: string) =>
    encodeURIComponent(request.pathParams[name] ?? ''),
  );
  const query = new URLSearchParams(Object.entries(request.query).filter(([, value]) => value !== ''));
  const search = query.toString();
  return search === '' ? path : `${path}?${search}`;
}

/** Whether the request sends a body: a blank one (of an operation whose body is optional) is left out. */
export const hasBody = (request: SampleRequest): request is SampleRequest & { body: string } =>
  request.body !== undefined && request.body.trim() !== '';

/** The headers a request sends besides `Authorization`. */
export function requestHeaders(request: SampleRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  if (hasBody(request)) headers['Content-Type'] = 'application/json';
  if (request.idempotencyKey) headers['Idempotency-Key'] = request.idempotencyKey;
  return headers;
}

/** The URL of the document's first server, as written: absolute (`https://api.example.com/v1`) or not (`/v1`). */
function serverUrlOf(document: Json): string {
  const server = ((document.servers as Json[] | undefined) ?? [])[0];
  return typeof server?.url === 'string' ? server.url : '/v1';
}

/** The base address the document's first server names when it is an absolute URL, which no origin changes. */
export function absoluteBaseUrl(document: Json): string | undefined {
  const url = serverUrlOf(document);
  return /^[a-z][a-z0-9+.-]*:/i.test(url) ? url.replace(/\/$/, '') : undefined;
}

/**
 * The base address the document's first server names; a relative one (`/v1`) on `origin`, the address the
 * document was fetched from, as OpenAPI resolves a relative server URL.
 */
export function baseUrlOf(document: Json, origin: string): string {
  return new URL(serverUrlOf(document), origin).href.replace(/\/$/, '');
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The body parsed, or its text as it is when it is not JSON (the sample then sends what the reader typed). */
function parsedBody(body: string): { json: unknown } | { text: string } {
  try {
    return { json: JSON.parse(body) };
  } catch {
    return { text: body };
  }
}

function curl(request: SampleRequest, target: SampleTarget): string {
  const url = `${target.baseUrl}${requestTarget(request)}`;
  const lines = [`curl -X ${request.method} ${shellQuote(url)}`];
  // The variable in double quotes so the shell expands it; a key typed in is quoted as it is.
  lines.push(
    target.key === undefined
      ? `-H "Authorization: Bearer $${KEY_VARIABLE}"`
      : `-H ${shellQuote(`Authorization: Bearer ${target.key}`)}`,
  );
  for (const [name, value] of Object.entries(requestHeaders(request)))
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (hasBody(request)) {
    const body = parsedBody(request.body);
    lines.push(`-d ${shellQuote('json' in body ? JSON.stringify(body.json) : body.text)}`);
  }
  return lines.join(' \\\n  ');
}

const indent = (text: string, by: string) => text.replaceAll('\n', `\n${by}`);

function fetchSample(request: SampleRequest, target: SampleTarget): string {
  const key =
    target.key === undefined ? `\`Bearer \${process.env.${KEY_VARIABLE}}\`` : `'Bearer ${target.key}'`;
  const headers = Object.entries(requestHeaders(request)).map(([name, value]) => `'${name}': '${value}'`);
  const lines = [
    `const response = await fetch('${target.baseUrl}${requestTarget(request)}', {`,
    `  method: '${request.method}',`,
    `  headers: { Authorization: ${key}${headers.map((header) => `, ${header}`).join('')} },`,
  ];
  if (hasBody(request)) {
    const body = parsedBody(request.body);
    lines.push(
      'json' in body
        ? `  body: JSON.stringify(${indent(JSON.stringify(body.json, null, 2), '  ')}),`
        : `  body: ${JSON.stringify(body.text)},`,
    );
  }
  lines.push('});', 'console.log(response.status, await response.json());');
  return lines.join('\n');
}

/** Query values as the client takes them: numbers where the document's examples are numbers. */
function clientQuery(query: Record<string, string>): Json {
  const values: Json = {};
  for (const [name, value] of Object.entries(query))
    if (value !== '') values[name] = /^\d+$/.test(value) ? Number(value) : value;
  return values;
}

function clientSample(request: SampleRequest, target: SampleTarget): string {
  const key = target.key === undefined ? `process.env.${KEY_VARIABLE}` : `'${target.key}'`;
  const args: string[] = Object.values(request.pathParams).map((value) =>
    /^\d+$/.test(value) ? value : `'${value}'`,
  );
  if (hasBody(request)) {
    const body = parsedBody(request.body);
    args.push('json' in body ? JSON.stringify(body.json, null, 2) : JSON.stringify(body.text));
  } else if (CLIENT_QUERY_METHODS.has(request.operationId)) {
    const query = clientQuery(request.query);
    if (Object.keys(query).length > 0) args.push(JSON.stringify(query));
  }
  if (request.idempotencyKey) args.push(`{ idempotencyKey: '${request.idempotencyKey}' }`);
  return [
    "import { createClient } from '@petstore-api/client';",
    '',
    `const client = createClient({ baseUrl: '${target.baseUrl}', apiKey: ${key} });`,
    `console.log(await client.${request.operationId}(${args.join(', ')}));`,
  ].join('\n');
}

/** JSON as a Python literal: the same text but for `true`, `false` and `null`. */
function python(value: unknown, depth = 0): string {
  const pad = '    '.repeat(depth + 1);
  const end = '    '.repeat(depth);
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (Array.isArray(value))
    return value.length === 0
      ? '[]'
      : `[\n${value.map((item) => `${pad}${python(item, depth + 1)},`).join('\n')}\n${end}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Json);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([name, item]) => `${pad}${JSON.stringify(name)}: ${python(item, depth + 1)},`).join('\n')}\n${end}}`;
  }
  return JSON.stringify(value);
}

function pythonSample(request: SampleRequest, target: SampleTarget): string {
  const key = target.key === undefined ? `{os.environ['${KEY_VARIABLE}']}` : target.key;
  const headers = [`"Authorization": f"Bearer ${key}"`];
  for (const [name, value] of Object.entries(requestHeaders(request)))
    if (name !== 'Content-Type') headers.push(`${JSON.stringify(name)}: ${JSON.stringify(value)}`);
  const lines = target.key === undefined ? ['import os', 'import requests', ''] : ['import requests', ''];
  lines.push(
    `response = requests.${request.method.toLowerCase()}(`,
    `    "${target.baseUrl}${requestTarget(request)}",`,
    `    headers={${headers.join(', ')}},`,
  );
  if (hasBody(request)) {
    const body = parsedBody(request.body);
    lines.push(
      'json' in body ? `    json=${python(body.json, 1)},` : `    data=${JSON.stringify(body.text)},`,
    );
  }
  lines.push(')', 'print(response.status_code, response.json())');
  return lines.join('\n');
}

/** The request as curl, JavaScript (`fetch` and our typed client) and Python (`requests`). */
export function codeSamples(request: SampleRequest, target: SampleTarget): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curl(request, target) },
    { lang: 'JavaScript', label: 'JavaScript (fetch)', source: fetchSample(request, target) },
    { lang: 'JavaScript', label: 'JavaScript (typed client)', source: clientSample(request, target) },
    { lang: 'Python', label: 'Python (requests)', source: pythonSample(request, target) },
  ];
}

/**
 * The document with `x-codeSamples` on every operation but the HEADs (a `curl -I` of the GET says as much),
 * each sending the operation's example request to `baseUrl` and reading the key from `PETSTORE_KEY`.
 */
export function withCodeSamples(document: Json, baseUrl: string): Json {
  const paths: Json = {};
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    const withSamples: Json = { ...item };
    for (const method of Object.keys(item)) {
      if (method === 'head') continue;
      const request = exampleRequest(document, path, method);
      withSamples[method] = { ...(item[method] as Json), 'x-codeSamples': codeSamples(request, { baseUrl }) };
    }
    paths[path] = withSamples;
  }
  return { ...document, paths };
}
