import { MemoryStore } from '../../src/storage/memory.js';
import { describeStoreConformance } from './storage-conformance.js';

describeStoreConformance('memory', () => new MemoryStore());
