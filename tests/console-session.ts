import type { TestApp } from './helper.ts';

export const PASSWORD = 'correct horse battery';

/** A browser's cookie jar and the token of the last form it saw. */
export class Browser {
  cookies = new Map<string, string>();
  csrf = '';
  constructor(
    readonly app: TestApp,
    readonly ip = '10.0.0.1',
  ) {}
  private keep<R extends { headers: Record<string, unknown>; body: string }>(res: R): R {
    const set = res.headers['set-cookie'];
    for (const c of ([] as string[]).concat((set as string | string[] | undefined) ?? [])) {
      const [pair] = c.split(';');
      const i = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, i);
      const value = (pair ?? '').slice(i + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
    return res;
  }
  private header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  async get(url: string) {
    return this.keep(
      await this.app.inject({
        method: 'GET',
        url,
        headers: { cookie: this.header(), accept: 'text/html' },
        remoteAddress: this.ip,
      }),
    );
  }
  async post(url: string, form: Record<string, string | string[]>, opts: { csrf?: string | null } = {}) {
    const body = new URLSearchParams();
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null) body.append('_csrf', token);
    for (const [k, v] of Object.entries(form)) for (const x of ([] as string[]).concat(v)) body.append(k, x);
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        payload: body.toString(),
        headers: { cookie: this.header(), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        remoteAddress: this.ip,
      }),
    );
  }
  async signIn(email: string, password = PASSWORD) {
    await this.get('/console/sign-in');
    return this.post('/console/sign-in', { email, password });
  }
}
