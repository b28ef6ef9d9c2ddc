/**
 * Checks responses against openapi.yaml: the status must be declared for the operation, the body must validate
 * against the declared schema for its media type (ajv, JSON Schema 2020-12), required headers must be there, and
 * every declared header that is there must validate against its schema (a pattern, const or enum checked only in
 * the document is how the fleet's weak ETags went out against a strong-only pattern unnoticed).
 */
import { escapePointer, openapi, resolve, validatorsFile } from './contract-validators';

export { openapi };

/** A compiled validator of one schema, as ajv makes it: `errors` says why the last value failed. */
type Validate = ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params: unknown }[] | null };

// Compiled once per run by the global setup (test/kit/global-setup.cjs), or here on first use (the unit project).
const validators: Record<string, Validate> = require(validatorsFile());

export interface CheckedResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The problems of `response` for GET `pathTemplate`, or an empty list when it matches the document. */
export function contractViolations(pathTemplate: string, response: CheckedResponse): string[] {
  const operationPointer = `#/paths/${escapePointer(pathTemplate)}/get`;
  const operation = resolve(operationPointer.slice(1)).value;
  if (!operation) return [`GET ${pathTemplate} is not in openapi.yaml`];
  const status = String(response.statusCode);
  const key = status in operation.responses ? status : 'default' in operation.responses ? 'default' : undefined;
  if (!key) return [`status ${status} is not declared for GET ${pathTemplate}`];
  const declared = resolve(`${operationPointer.slice(1)}/responses/${key}`);
  const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const problems: string[] = [];
  for (const name of Object.keys(declared.value.headers ?? {})) {
    const header = resolve(`${declared.pointer}/headers/${escapePointer(name)}`);
    const value = headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.value.required) problems.push(`header ${name} is missing`);
      continue;
    }
    const validate = validators[`${header.pointer}/schema`];
    if (!validate) problems.push(`header ${name}: no schema`);
    else if (!validate(value)) {
      problems.push(
        ...(validate.errors ?? []).map(
          (error) => `header ${name} ${JSON.stringify(value)} ${error.message} ${JSON.stringify(error.params)}`,
        ),
      );
    }
  }
  if (!declared.value.content) {
    // A response without content (304): nothing may be sent.
    return response.body === undefined || response.body === '' ? problems : [...problems, `${status} must have no body`];
  }
  const mediaType = (headers['content-type'] ?? '').split(';')[0].trim();
  if (!declared.value.content?.[mediaType]) return [...problems, `media type "${mediaType}" is not declared for ${status}`];
  const validate = validators[`${declared.pointer}/content/${escapePointer(mediaType)}/schema`];
  if (!validate) return [...problems, 'no schema'];
  if (!validate(response.body)) {
    problems.push(...(validate.errors ?? []).map((error) => `body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`));
  }
  return problems;
}

/** Jest assertion: the response is one the document declares. */
export function expectContract(pathTemplate: string, response: CheckedResponse): void {
  const problems = contractViolations(pathTemplate, response);
  if (problems.length) {
    throw new Error(
      `response violates openapi.yaml (GET ${pathTemplate} → ${response.statusCode}):\n  ${problems.join('\n  ')}\n${JSON.stringify(response.body).slice(0, 500)}`,
    );
  }
}

/** The problems of `value` against `#/components/schemas/<name>`, or an empty list. */
export function schemaViolations(name: string, value: unknown): string[] {
  const validate = validators[`/components/schemas/${name}`];
  if (!validate) return [`no schema ${name}`];
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}
