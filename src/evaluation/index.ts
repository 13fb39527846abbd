// chatfold/evaluation — replay a recorded conversation through a strategy (EV-2, CLI-3).
export type { ReplayOptions, ReplayResult, ReplayTurn } from './replay.ts';
export { replayConversation } from './replay.ts';
export type { ChartOptions, ChartTurn } from './replay-chart.ts';
export { renderReplayChart } from './replay-chart.ts';
