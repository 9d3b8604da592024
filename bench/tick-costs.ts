/**
 * The nextTick figures of the bench: tick-cost.ts run in two fresh processes, one that keeps a tick object
 * as the service does and one that does not, and the line that reports them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_CPU } from './cpu.js';
import { runToCompletion, spawnPinned } from './processes.js';

const TICK_COST = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tick-cost.js');

interface TickCost {
  warmNs: number;
  idleNs: number;
}

/** What `process.nextTick` costs after an idle spell, with the service's kept tick object and without. */
export interface TickCosts {
  bare: TickCost;
  kept: TickCost;
}

async function tickCost(mode: 'bare' | 'kept'): Promise<TickCost> {
  const child = spawnPinned(SERVER_CPU, process.execPath, ['--expose-gc', TICK_COST, mode]);
  const { code, stdout, stderr } = await runToCompletion(child);
  if (code !== 0) throw new Error(`tick-cost.js ${mode} failed (exit code ${code}):\n${stderr}`);
  return JSON.parse(stdout) as TickCost;
}

/** Measures both kinds of process, each in its own, one after the other on the server CPU. */
export async function measureTickCosts(): Promise<TickCosts> {
  return { bare: await tickCost('bare'), kept: await tickCost('kept') };
}

/** One line: the cost warm, then after idle GCs without and with the kept tick object. */
export function tickCostsText({ bare, kept }: TickCosts): string {
  const ns = (value: number) => `${value.toFixed(0)} ns`;
  return (
    `${ns(bare.warmNs)} warm; after idle GCs ${ns(bare.idleNs)} as in a bare node:http server, ` +
    `${ns(kept.idleNs)} with the service's kept tick object (${(bare.idleNs / kept.idleNs).toFixed(1)}x)`
  );
}
