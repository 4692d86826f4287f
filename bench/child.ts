import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts bench/score-server.ts in `mode` in its own process and resolves with
 * the JSON line it prints once listening (port, keys…). BENCH_NODE_ARGS adds
 * Node options to the server (e.g. `--cpu-prof` or `--trace-gc`).
 */
export function startBenchServer<T extends object>(
  mode: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; info: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        '--import',
        'tsx',
        'bench/score-server.ts',
        mode,
      ],
      {
        cwd: join(import.meta.dirname, '..'),
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, info: JSON.parse(line) as T });
    });
    child.on('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}
