import { ownInformer, type InformerFactory } from '../registry/informer.js';
import type { WorkQueueMetrics } from '../registry/work-queue.js';

/** An in-process control loop (namespace deletion, default service accounts, ...). */
export interface Controller {
  readonly name: string;
  start(): Promise<void>;
  stop(): void;
}

/** What the server shares among its controllers: informers per resource and the queues' metrics. */
export interface ControllerShared {
  informers?: InformerFactory;
  metrics?: WorkQueueMetrics;
}

/** The informer factory to use: the server's shared one, else an informer of one's own. */
export function followerFactory(shared: ControllerShared): InformerFactory {
  return shared.informers ?? ownInformer;
}
