export { MemoryStore, memoryStore } from './memory-store.ts';
