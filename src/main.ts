#!/usr/bin/env node
/**
 * The `quackd` bin: every verb (src/cli/quackd.ts), run by startBin. Nothing else happens here.
 * No top-level await: the bundle's launcher (cross/launcher.ts) may load this module by import().
 */
import { startBin } from './cli/bin.js';
import { quackd } from './cli/quackd.js';

startBin(quackd);
