// chatfold/models — the model registry behind `model: '…'` options (MOD-*).

export { tokenizerForModel } from '../tokens/tokenizer-for-model.ts';
export type { CheckedModel, ModelDataProblem } from './check-model-data.ts';
export { checkModelEntries, DOCUMENTED_ODD_SIZES, likelyTypoOf } from './check-model-data.ts';
export { FAMILY_DEFAULTS } from './find-listed-model.ts';
export type { ListModelsOptions } from './list-models.ts';
export { listModels } from './list-models.ts';
export type { LoadModelRegistryOptions } from './load-model-registry.ts';
export { loadModelRegistry } from './load-model-registry.ts';
export { modelFamilyTokenizer } from './model-family-tokenizer.ts';
export type { ModelEntry, ModelMatch, ModelMatchKind, ModelRegistry } from './registry.ts';
export { BUNDLED_MODELS_SOURCES, bundledModelRegistry, createModelRegistry } from './registry.ts';
export type { ModelOverrides, ResolvedModel, ResolveModelOptions } from './resolve-model.ts';
export { resolveModel } from './resolve-model.ts';
export type { ModelInfo, ModelPricing } from './types.ts';
