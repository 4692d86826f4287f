/**
 * The published contract, held against what the server answers: every answer
 * a test receives through `inject` is checked against the OpenAPI document
 * for its operation and status — the status is one the operation declares,
 * the media type one its response describes, the JSON body valid against its
 * schema, and the headers it declares required present. An answer the
 * document does not describe is a violation; closeTestApp fails the test file
 * that received it (tests/helper.ts).
 *
 * Answers of paths the document does not publish (unknown routes, the docs
 * pages, hidden demo pages, CORS preflights) are not checked: no client is
 * generated for them.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its function arrives as the default export, or wrapped once more
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
}
interface Response {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, { required?: boolean }>;
}

export interface Answer {
  method: string;
  url: string;
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

export interface ContractCheck {
  /** checks one answer; returns what is wrong with it, or null */
  check(answer: Answer): string | null;
  /** operation and status of every answer checked: "POST /api/widget/score 200" */
  readonly seen: Set<string>;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function contractCheck(doc: Doc): ContractCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'openapi.json');
  const templates = Object.keys(doc.paths).map((path) => ({
    path,
    re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}/]+\}/g, '[^/]+')}$`),
  }));
  const validators = new Map<string, ValidateFunction>();
  const seen = new Set<string>();

  function validator(pointer: string): ValidateFunction {
    let v = validators.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `openapi.json#${pointer}` });
      validators.set(pointer, v);
    }
    return v;
  }

  return {
    seen,
    check(answer) {
      // as sent: a template's parameter matches any segment, encoded or not
      const path = (answer.url.split('?')[0] ?? '').replace(/\/+$/, '') || '/';
      const template = templates.find((t) => t.re.test(path));
      if (!template) return null;
      const method = answer.method.toLowerCase();
      const operation = doc.paths[template.path]?.[method];
      if (!operation) return null;
      const where = `${answer.method} ${template.path} ${answer.statusCode}`;
      seen.add(where);
      const status = String(answer.statusCode);
      const key = status in operation.responses ? status : `${status[0]}XX`;
      const response = operation.responses[key];
      if (!response) return `${where}: a status the document does not declare (${answer.body.slice(0, 200)})`;
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        if (header.required && answer.headers[name.toLowerCase()] === undefined) {
          return `${where}: the declared header ${name} is missing`;
        }
      }
      if (!response.content || answer.body === '') {
        return response.content && answer.statusCode !== 304 ? `${where}: an empty body where one is declared` : null;
      }
      const type = String(answer.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim();
      if (!type || !response.content[type]) {
        return `${where}: media type "${type}" is not one the document describes (${Object.keys(response.content).join(', ')})`;
      }
      if (type !== 'application/json') return null;
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        return `${where}: the body is not JSON`;
      }
      const pointer = `/paths/${escapePointer(template.path)}/${method}/responses/${key}/content/${escapePointer(type)}/schema`;
      const validate = validator(pointer);
      if (validate(body)) return null;
      const e = validate.errors?.[0];
      return `${where}: the body does not match its schema: ${e?.instancePath || '/'} ${e?.message} (${answer.body.slice(0, 300)})`;
    },
  };
}
