/**
 * quackd's own quack for a Reachy Mini whose daemon plays sound: a short nasal buzz (a falling
 * fundamental and its harmonics under a quick attack and decay) as a 16-bit mono PCM WAV, made
 * here so nothing is shipped or fetched. Pure.
 */
const RATE = 16_000;
const SECONDS = 0.32;

/** The WAV file's bytes. */
export function quackWav(): Uint8Array {
  const n = Math.round(RATE * SECONDS);
  const data = new Int16Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    // A duck's quack falls in pitch, 480 Hz to 300 Hz, and is rich in harmonics (its nasal buzz).
    phase += (2 * Math.PI * (480 - 180 * (t / SECONDS))) / RATE;
    let v = 0;
    for (let h = 1; h <= 8; h++) v += Math.sin(h * phase) / h ** 0.8;
    const envelope = Math.min(1, t / 0.015) * Math.exp(-t / 0.12);
    data[i] = Math.round(Math.max(-1, Math.min(1, 0.28 * v * envelope)) * 32767);
  }
  const wav = new DataView(new ArrayBuffer(44 + n * 2));
  const text = (at: number, s: string): void => [...s].forEach((c, k) => wav.setUint8(at + k, c.charCodeAt(0)));
  text(0, 'RIFF');
  wav.setUint32(4, 36 + n * 2, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  wav.setUint32(16, 16, true); // the fmt chunk's size
  wav.setUint16(20, 1, true); // PCM
  wav.setUint16(22, 1, true); // mono
  wav.setUint32(24, RATE, true);
  wav.setUint32(28, RATE * 2, true); // bytes a second
  wav.setUint16(32, 2, true); // bytes a frame
  wav.setUint16(34, 16, true); // bits a sample
  text(36, 'data');
  wav.setUint32(40, n * 2, true);
  data.forEach((v, i) => wav.setInt16(44 + i * 2, v, true));
  return new Uint8Array(wav.buffer);
}
