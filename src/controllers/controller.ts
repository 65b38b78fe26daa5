/** An in-process control loop (namespace deletion, default service accounts, ...). */
export interface Controller {
  readonly name: string;
  start(): Promise<void>;
  stop(): void;
}
