/**
 * The fake pilot's lookout script: look all round, report each thing where the camera saw it,
 * quack to call the person (where the duck allows it), declare. It reads the sightings from the scan's structured result (checked against the
 * `report` verb's own schema), so what it reports is exactly what the body said it saw.
 */
import { z } from 'zod';
import { sighting } from '../../verbs/report.js';
import type { PilotContext, ToolCall } from './provider.js';

const sightings = z.array(sighting);

export function playLookout(ctx: PilotContext, offered: ReadonlySet<string>): Omit<ToolCall, 'id'> {
  const last = ctx.lastResults.at(-1);
  // Under --dry-run nothing is seen: one pass through the plan, then declare.
  if (ctx.dryRun) {
    return last?.verb === 'look_around' ? { name: 'declare_success', args: { reason: 'Dry run: the plan went through once.' } } : { name: 'look_around', args: {} };
  }
  if (last?.verb === 'quack') return { name: 'declare_success', args: { reason: 'I reported what is where, and called the person.' } };
  if (last?.verb === 'report') {
    if (!last.result.ok) return { name: 'declare_failure', args: { reason: `My report did not hold: ${last.result.summary}` } };
    return offered.has('quack') ? { name: 'quack', args: {} } : { name: 'declare_success', args: { reason: `I reported what is where: ${last.result.summary}` } };
  }
  if (last?.verb === 'look_around') {
    const seen = sightings.safeParse(last.result.data?.['sightings']);
    if (!seen.success || seen.data.length === 0) return { name: 'declare_failure', args: { reason: `I looked all round and saw nothing to report (${last.result.summary}).` } };
    return { name: 'report', args: { sightings: seen.data } };
  }
  return { name: 'look_around', args: {} };
}
