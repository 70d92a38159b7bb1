/**
 * onnxruntime-node (from 1.29 on Linux) starts Microsoft's telemetry as its library loads: a
 * device id and an event database under ~/.cache/Microsoft/DeveloperTools/.onnxruntime, /tmp/.ses,
 * an empty /tmp/mat-debug-<pid>.log per process, and a thread of its own (3 MB). A robot's
 * service must not write a device id and queue events for a vendor on every boot, nor litter /tmp
 * on every command: quackd's bins turn it off (src/cli/bin.ts) unless the environment says
 * otherwise. The library reads the process's real environment, which only the main thread can
 * change (a worker's process.env is a copy), so it is set before the first worker starts.
 */
export const ONNX_TELEMETRY_OFF = { name: 'ORT_DISABLE_TELEMETRY', value: '1' } as const;
