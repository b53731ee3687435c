/**
 * The curl commands of a docs code block, read as a shell would read them (quotes, `\` at the end
 * of a line, `$VAR` and `${VAR}` outside single quotes) and as curl would send them (`-d` makes a
 * POST with curl's form media type unless a Content-Type is given). Only the options the docs use
 * are known; any other fails, so an example cannot say what no test has run.
 */
export interface CurlRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Shell words of one command line, with variables expanded. */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  let word: string | null = null;
  const expand = (name: string) => {
    if (!(name in vars)) throw new Error(`the example uses $${name}, which the docs do not define`);
    return vars[name];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated ' in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = '';
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && '"\\$'.includes(line[i + 1])) text += line[++i];
        else if (line[i] === '$') {
          const m = /^\$(?:\{(\w+)\}|(\w+))/.exec(line.slice(i));
          if (!m) text += '$';
          else {
            text += expand(m[1] ?? m[2]);
            i += m[0].length - 1;
          }
        } else text += line[i];
      }
      if (i >= line.length) throw new Error(`unterminated " in: ${line}`);
      word = (word ?? '') + text;
    } else if (c === '$') {
      const m = /^\$(?:\{(\w+)\}|(\w+))/.exec(line.slice(i));
      if (!m) throw new Error(`a bare $ in: ${line}`);
      word = (word ?? '') + expand(m[1] ?? m[2]);
      i += m[0].length - 1;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== null) out.push(word);
      word = null;
    } else if (c === '#' && word === null) {
      break;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) out.push(word);
  return out;
}

function request(args: string[]): CurlRequest {
  const headers: Record<string, string> = {};
  let method: string | null = null;
  let url: string | null = null;
  let body: string | undefined;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      if (i + 1 >= args.length) throw new Error(`${arg} needs a value`);
      return args[++i];
    };
    if (['-s', '-S', '-sS', '-i', '-si', '--silent', '--show-error', '--include'].includes(arg)) continue;
    if (arg === '-X' || arg === '--request') method = value();
    else if (arg === '-H' || arg === '--header') {
      const header = value();
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (['-d', '--data', '--data-raw'].includes(arg)) body = value();
    else if (arg.startsWith('-')) throw new Error(`curl option ${arg} is not one the docs' examples may use`);
    else if (url === null) url = arg;
    else throw new Error(`a second URL: ${arg}`);
  }
  if (!url) throw new Error('a curl command without a URL');
  if (body !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded';
  return { method: method ?? (body !== undefined ? 'POST' : 'GET'), url, headers, body };
}

/** Every curl command of a block; a line that is neither a command nor a comment fails. */
export function curlRequests(block: string, vars: Record<string, string>): CurlRequest[] {
  const commands: string[] = [];
  let pending = '';
  for (const line of block.replace(/\\\n/g, ' ').split('\n')) {
    pending = pending ? `${pending}\n${line}` : line;
    if (!openQuote(pending)) {
      if (pending.trim() && !pending.trim().startsWith('#')) commands.push(pending.trim());
      pending = '';
    }
  }
  if (pending) throw new Error(`an unterminated quote in: ${pending}`);
  return commands.map((command) => {
    const args = words(command, vars);
    if (args[0] !== 'curl') throw new Error(`not a curl command: ${command}`);
    return request(args);
  });
}

/** Whether a quote opened in `text` is still open at its end (a JSON body over several lines). */
function openQuote(text: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === '"' && c === '\\') i++;
    else if (quote && c === quote) quote = null;
    else if (!quote && (c === "'" || c === '"')) quote = c;
    else if (!quote && c === '#' && (i === 0 || /\s/.test(text[i - 1]))) break;
  }
  return quote !== null;
}

/** Sends a request as curl would (the path as written: fetch percent-encodes what curl sends raw). */
export async function send(curl: CurlRequest): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(curl.url, { method: curl.method, headers: curl.headers, body: curl.body });
  const text = await response.text();
  let body: unknown = null;
  if (/json/.test(response.headers.get('content-type') ?? '')) body = JSON.parse(text);
  return { status: response.status, body, text };
}
