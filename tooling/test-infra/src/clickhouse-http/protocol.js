// ClickHouse's HTTP interface as `@clickhouse/client` uses it: what a request asks for, and how an
// error is answered. Plain JavaScript (checked by tsc through JSDoc), so that the server's process
// runs it the same from the sources under a test runner and from the build.

/**
 * @typedef {object} ClickHouseRequest
 * @property {string} sql The `query` parameter, then the body on the next line (an insert's rows
 *   follow its `INSERT … FORMAT …`), as ClickHouse joins them; or the body alone.
 * @property {string | null} database
 * @property {string} defaultFormat The output format of a query without a FORMAT clause.
 * @property {Record<string, string | null>} params The `param_<name>` values, for chdb's queryBindAsync.
 * @property {[string, string][]} settings
 */

/**
 * URL parameters that the HTTP layer reads, and settings about its response only (this server
 * neither streams progress nor compresses): none of them is a setting of the query.
 */
const NOT_QUERY_SETTINGS = new Set([
  'query',
  'database',
  'default_format',
  'query_id',
  'user',
  'password',
  'quota_key',
  'role',
  'session_id',
  'session_timeout',
  'session_check',
  'close_session',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'stacktrace',
  'client_protocol_version',
  'enable_http_compression',
  'http_zlib_compression_level',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_wait_end_of_query',
  'http_response_buffer_size',
  'add_http_cors_header',
  'cancel_http_readonly_queries_on_client_close',
]);

/** An error as ClickHouse words it; `clickhouseCode` as chdb's errors carry it. */
export class ClickHouseError extends Error {
  /**
   * @param {number} code
   * @param {string} type
   * @param {string} message
   */
  constructor(code, type, message) {
    super(`Code: ${code}. DB::Exception: ${message}. (${type})`);
    this.clickhouseCode = code;
  }
}

/** @param {string} user */
export function authenticationFailed(user) {
  return new ClickHouseError(
    516,
    'AUTHENTICATION_FAILED',
    `${user}: Authentication failed: password is incorrect, or there is no user with such name`,
  );
}

/**
 * @param {URL} url
 * @param {import('node:http').IncomingHttpHeaders} headers
 * @param {string} body
 * @returns {ClickHouseRequest}
 */
export function parseRequest(url, headers, body) {
  refuseUnreadableBody(headers);
  const query = url.searchParams.get('query');
  const sql = query === null ? body : body ? `${query}\n${body}` : query;
  if (!sql.trim()) throw new ClickHouseError(62, 'SYNTAX_ERROR', 'Empty query');
  /** @type {Record<string, string | null>} */
  const params = {};
  /** @type {[string, string][]} */
  const settings = [];
  for (const [key, value] of url.searchParams) {
    if (key.startsWith('param_')) {
      const name = key.slice('param_'.length);
      params[name] = bindValue(value, placeholderType(sql, name));
    } else if (!NOT_QUERY_SETTINGS.has(key)) settings.push([key, value]);
  }
  return {
    sql,
    database: url.searchParams.get('database'),
    defaultFormat: url.searchParams.get('default_format') || 'TabSeparated',
    params,
    settings,
  };
}

/** @param {import('node:http').IncomingHttpHeaders} headers */
function refuseUnreadableBody(headers) {
  if (headers['content-encoding'])
    throw new ClickHouseError(
      48,
      'NOT_IMPLEMENTED',
      'This test server reads no compressed request: create the client with compression: { request: false }',
    );
  if (headers['content-type']?.startsWith('multipart/form-data'))
    throw new ClickHouseError(
      48,
      'NOT_IMPLEMENTED',
      'This test server reads no multipart request: leave use_multipart_params unset',
    );
}

/**
 * ClickHouse's order: X-ClickHouse-User/Key headers, else Basic auth, else the `user` and
 * `password` parameters; no credentials at all are the `default` user's without a password.
 *
 * @param {URLSearchParams} search
 * @param {import('node:http').IncomingHttpHeaders} headers
 * @returns {{ user: string; password: string }}
 */
export function credentials(search, headers) {
  const user = headers['x-clickhouse-user'];
  const key = headers['x-clickhouse-key'];
  if (user || key) return { user: String(user ?? ''), password: String(key ?? '') };
  const basic = /^Basic\s+(\S+)$/i.exec(headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0
      ? { user: decoded, password: '' }
      : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return { user: search.get('user') ?? 'default', password: search.get('password') ?? '' };
}

/**
 * The type of the `{name:Type}` placeholder of `sql`, if it has one.
 *
 * @param {string} sql
 * @param {string} name
 */
function placeholderType(sql, name) {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\{\\s*${escaped}\\s*:\\s*([^}]+)\\}`).exec(sql)?.[1]?.trim();
}

/** @type {Record<string, string>} */
const UNESCAPED = { 0: '\0', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * A `param_<name>` value re-expressed for chdb's queryBindAsync. ClickHouse reads the value in its
 * escaped text form, and chdb hands the engine a string value after escaping it itself: so the
 * value is unescaped here (`\N` becoming null), and chdb's escaping gives the engine back what the
 * client sent. A quote escaped inside a string literal of an array, tuple or map has one form that
 * chdb's escaping leaves alone: SQL's doubled quote.
 *
 * @param {string} text
 * @param {string | undefined} type
 * @returns {string | null}
 */
export function bindValue(text, type) {
  if (text === '\\N') return null;
  const composite = /^(Array|Tuple|Map|Nested)\s*\(/i.test(type ?? '');
  return text.replace(/\\(.)/gs, (_, char) =>
    char === "'" ? (composite ? "''" : "'") : (UNESCAPED[char] ?? char),
  );
}

/**
 * The format of the result: the query's own FORMAT clause (the client ends each `query()` with
 * one), else the default.
 *
 * @param {string} sql
 * @param {string} defaultFormat
 */
export function outputFormat(sql, defaultFormat) {
  return /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(sql)?.[1] ?? defaultFormat;
}

/**
 * A setting of the query, as a statement a chdb session runs before it.
 *
 * @param {[string, string][]} settings
 */
export function setStatement(settings) {
  const assignments = settings.map(([name, value]) => `${identifier(name)} = ${literal(value)}`);
  return `SET ${assignments.join(', ')}`;
}

/** @param {string} name */
export function identifier(name) {
  return `\`${name.replace(/[\\`]/g, '\\$&')}\``;
}

/** @param {string} value */
function literal(value) {
  return `'${value.replace(/[\\']/g, '\\$&')}'`;
}

// ClickHouse's exceptionCodeToHTTPStatus, by the error's name.
const STATUS_BY_ERROR = new Map([
  ['REQUIRED_PASSWORD', 401],
  ...[
    'UNKNOWN_USER',
    'WRONG_PASSWORD',
    'AUTHENTICATION_FAILED',
    'SET_NON_GRANTED_ROLE',
    'ACCESS_DENIED',
  ].map((name) => /** @type {[string, number]} */ ([name, 403])),
  ...[
    'BAD_ARGUMENTS',
    'CANNOT_COMPILE_REGEXP',
    'CANNOT_PARSE_TEXT',
    'CANNOT_PARSE_ESCAPE_SEQUENCE',
    'CANNOT_PARSE_QUOTED_STRING',
    'CANNOT_PARSE_DATE',
    'CANNOT_PARSE_DATETIME',
    'CANNOT_PARSE_NUMBER',
    'CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING',
    'CANNOT_PARSE_IPV4',
    'CANNOT_PARSE_IPV6',
    'CANNOT_PARSE_INPUT_ASSERTION_FAILED',
    'CANNOT_PARSE_UUID',
    'DUPLICATE_COLUMN',
    'ILLEGAL_COLUMN',
    'UNKNOWN_ELEMENT_IN_AST',
    'UNKNOWN_TYPE_OF_AST_NODE',
    'THERE_IS_NO_COLUMN',
    'TOO_DEEP_AST',
    'TOO_BIG_AST',
    'UNEXPECTED_AST_STRUCTURE',
    'SYNTAX_ERROR',
    'INCORRECT_DATA',
    'TYPE_MISMATCH',
    'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
  ].map((name) => /** @type {[string, number]} */ ([name, 400])),
  ...[
    'UNKNOWN_TABLE',
    'UNKNOWN_FUNCTION',
    'UNKNOWN_IDENTIFIER',
    'UNKNOWN_TYPE',
    'UNKNOWN_STORAGE',
    'UNKNOWN_DATABASE',
    'UNKNOWN_SETTING',
    'UNKNOWN_DIRECTION_OF_SORTING',
    'UNKNOWN_AGGREGATE_FUNCTION',
    'UNKNOWN_FORMAT',
    'UNKNOWN_DATABASE_ENGINE',
    'UNKNOWN_TYPE_OF_QUERY',
    'UNKNOWN_ROLE',
  ].map((name) => /** @type {[string, number]} */ ([name, 404])),
  ['NOT_IMPLEMENTED', 501],
]);

/**
 * The answer to a failed request: ClickHouse's status, code and text. An error that is not the
 * engine's (chdb's own, or this server's) is a STD_EXCEPTION, as ClickHouse reports a C++ one.
 *
 * @param {unknown} error
 * @returns {{ status: number; code: number; text: string }}
 */
export function errorResponse(error) {
  const code = /** @type {{ clickhouseCode?: unknown }} */ (error)?.clickhouseCode;
  if (typeof code !== 'number') {
    const message = error instanceof Error ? error.message : String(error);
    return {
      status: 500,
      code: 1001,
      text: `Code: 1001. DB::Exception: ${message}. (STD_EXCEPTION)`,
    };
  }
  const text = /** @type {Error} */ (error).message;
  const names = [...text.matchAll(/\(([A-Z][A-Z0-9_]{2,})\)/g)];
  const name = names.at(-1)?.[1] ?? '';
  return { status: STATUS_BY_ERROR.get(name) ?? 500, code, text };
}
