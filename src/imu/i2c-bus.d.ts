/**
 * The few parts of the `i2c-bus` package (5.x, an optional dependency: a native addon built at
 * install, so it may be absent) that i2c-bus-device.ts uses. The package ships no types.
 */
declare module 'i2c-bus' {
  export interface BytesRead {
    readonly bytesRead: number;
    readonly buffer: Buffer;
  }
  export interface PromisifiedBus {
    readI2cBlock(address: number, command: number, length: number, buffer: Buffer): Promise<BytesRead>;
    writeByte(address: number, command: number, byte: number): Promise<void>;
    close(): Promise<void>;
  }
  export function openPromisified(busNumber: number): Promise<PromisifiedBus>;
  const i2c: { openPromisified: typeof openPromisified };
  export default i2c;
}
