/**
 * openapi.yaml and its schemas' validators, compiled once for a test run: ajv's standalone code for every schema the
 * contract check (test/kit/contract.ts) may ask for, kept in .cache/contract/ under a hash of the document and of this
 * file. Compiling them in each file that checks responses (ajv, JSON Schema 2020-12, every error reported) cost that
 * file some 0.3–0.4 CPU-seconds (twenty files a run); loading the compiled module costs some 0.04.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsedYaml } from '../../scripts/support/parsed-yaml';

const DOCUMENT = join(__dirname, '..', '..', 'openapi.yaml');
// yaml is loaded only to parse a changed document: a file checking responses reads the parsed value kept by parsedYaml
// (some 18 ms of CPU per test file for yaml's modules).
export const openapi = parsedYaml(DOCUMENT, (text) => (require('yaml') as typeof import('yaml')).parse(text));

export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The value at `pointer` in the document, following a `$ref` there, and the pointer it was found at. */
export function resolve(pointer: string): { pointer: string; value: any } {
  let value: any = openapi;
  for (const segment of pointer.split('/').slice(1)) value = value?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  if (value && typeof value.$ref === 'string') return resolve(value.$ref.slice(1));
  return { pointer, value };
}

/** Every schema a check may ask for, by its pointer: each operation's response bodies and headers, each component schema. */
function schemaPointers(): string[] {
  const pointers = Object.keys(openapi.components?.schemas ?? {}).map((name) => `/components/schemas/${escapePointer(name)}`);
  for (const path of Object.keys(openapi.paths ?? {})) {
    const operation = `/paths/${escapePointer(path)}/get`;
    for (const status of Object.keys(resolve(operation).value?.responses ?? {})) {
      const declared = resolve(`${operation}/responses/${status}`);
      for (const name of Object.keys(declared.value.headers ?? {})) {
        pointers.push(`${resolve(`${declared.pointer}/headers/${escapePointer(name)}`).pointer}/schema`);
      }
      for (const mediaType of Object.keys(declared.value.content ?? {}))
        pointers.push(`${declared.pointer}/content/${escapePointer(mediaType)}/schema`);
    }
  }
  return [...new Set(pointers)];
}

/**
 * The module of compiled validators, one export per pointer of `schemaPointers()`; compiled now when the document or
 * this file changed since it was last.
 */
export function validatorsFile(): string {
  const hash = createHash('sha256').update(readFileSync(DOCUMENT)).update(readFileSync(__filename)).digest('hex');
  const directory = join(__dirname, '..', '..', '.cache', 'contract');
  const file = join(directory, `${hash}.js`);
  // Looked for before the caller requires it: jest's resolver would remember a file missing.
  if (existsSync(file)) return file;
  const { default: Ajv2020, _ } = require('ajv/dist/2020');
  const standaloneCode = require('ajv/dist/standalone').default;
  const addFormats = require('ajv-formats').default;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  });
  addFormats(ajv);
  ajv.addSchema(openapi, 'openapi');
  const code: string = standaloneCode(ajv, Object.fromEntries(schemaPointers().map((pointer) => [pointer, `openapi#${pointer}`])));
  mkdirSync(directory, { recursive: true });
  // Written whole, then renamed: processes compiling it at the same moment each see a whole module.
  const part = `${file}.${process.pid}.part`;
  writeFileSync(part, code);
  renameSync(part, file);
  return file;
}
