/**
 * The transcript's vocabulary: one JSON object per line, each with `t` (ISO time), `run` (the run
 * id) and `type`. Readers must tolerate types they do not know (newer quackd versions add some).
 */
export type TranscriptEvent =
  | { type: 'start'; duck: string; body: string; /** the fleet's name of the robot, when it has one */ robot?: string; /** who asked for the run: `mcp session 3f2a1b9c (claude-ai 0.1.0)` */ by?: string; provider: string; model: string; dryRun: boolean; seed: number; budgets: Record<string, number>; verbs: string[]; confirm: string[]; quackd: string; node: string; /** the writing process, to tell a run still going from one whose process died (older transcripts have none) */ pid?: number }
  | { type: 'prompt'; role: 'system' | 'user' | 'tool'; content: string; name?: string }
  /** `pictureBytes`: the bytes of pictures (base64) this request carries, when it carries any. */
  | { type: 'request'; call: number; messages: number; tools: number; pictureBytes?: number }
  | { type: 'response'; call: number; text: string; toolCalls: { id: string; name: string; args: unknown; error?: string }[]; usage?: { inputTokens: number; outputTokens: number }; ms: number }
  | { type: 'tool_call'; step: number; id: string; name: string; args: unknown }
  | { type: 'refused'; name: string; reason: string }
  | { type: 'gate'; verb: string; label: string; allowed: boolean; how: 'tty' | 'yes' | 'no-tty' | 'aborted' | 'person' | 'channel' | 'timeout' | 'unasked'; /** who answered, when the service heard it from someone (`mqtt client ha-den`) */ by?: string }
  | { type: 'verb_result'; step?: number; verb: string; label: string; ok: boolean; summary: string; data?: Record<string, unknown>; invented: boolean }
  | { type: 'frame'; step: number; state: Record<string, unknown>; ascii?: string }
  | { type: 'memory'; action: string; detail: Record<string, unknown> }
  | { type: 'budget'; budget: 'steps' | 'llm_calls' | 'seconds'; used: number; limit: number }
  | { type: 'error'; message: string }
  /** The body reported trouble by itself: a lost link, a firmware fault (watchdog, battery), a fall between verbs. */
  | { type: 'trouble'; kind: 'link-lost' | 'fault' | 'fell'; message: string }
  /**
   * The run's body talks to a firmware over a link: which port, which firmware and which boot of
   * it (two runs with one boot id ran on one firmware that did not restart in between).
   */
  | { type: 'body_link'; device: string; firmware: string; board: string; boot: number }
  /** The body was told to stop at the end of the run (every run, whatever ended it). */
  | { type: 'body_stop'; ok: boolean; error?: string }
  /**
   * A flock's coordinator (src/flock) in the flock's own transcript: a member and where it runs,
   * a member's run started (`memberRun` links its transcript) or ended, and each decision.
   */
  | { type: 'flock'; what: 'member' | 'run' | 'finder' | 'allow' | 'deny' | 'stop' | 'quack' | 'drop' | 'member_end'; member: string; reason?: string; verb?: string; memberRun?: string; duck?: string; where?: string; seed?: number; outcome?: Outcome['status'] }
  | { type: 'end'; outcome: Outcome['status']; reason: string; steps: number; llmCalls: number; seconds: number; usage?: { inputTokens: number; outputTokens: number }; /** pictures shown to the model, and their bytes over every request */ pictures?: { shown: number; bytes: number } };

/** How a run ended. */
export interface Outcome {
  readonly status: 'success' | 'failure' | 'budget' | 'interrupted' | 'error';
  readonly reason: string;
}

export type TranscriptLine = TranscriptEvent & { t: string; run: string };
