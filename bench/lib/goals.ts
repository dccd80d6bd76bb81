/**
 * The bench's goals as data: performance round three (issue 34, docs/benchmarks.md
 * "Round three"). Ratios are subject ÷ baseline measured in the same rounds; latencies in ms.
 * Goals of earlier rounds that round three keeps (ORM recorder, growth, per token delta,
 * 1,000 subscribers' steady p99, heap per subscription) stay with their scenarios.
 */
export const GOALS = {
  /** executeToolCall over HTTP, every concurrency and both org layouts: throughput ÷ raw pg sending the same statements. */
  gatewayHttpOfRaw: 0.65,
  /** Same, ÷ the minimal floor (one round trip per transaction, bench/lib/floor-tool-call.ts). */
  gatewayHttpOfFloor: 0.5,
  /** ToolGateway.execute in-process ÷ the minimal floor. */
  gatewayInprocOfFloor: 0.75,
  /** CPU per HTTP call ÷ raw pg's CPU per call, at most. */
  gatewayHttpCpuOfRaw: 2,
  /** Nested reads over HTTP ÷ hand-written SQL. */
  readsHttpOfSql: 0.35,
  /** Bursts at 1,000 subscribers: frames/s ÷ raw ws. */
  burstOfRaw: 0.7,
  /** 10,000 subscribers: p99 ÷ raw ws's p99 in the same run, at most. */
  fleetP99OfRaw: 1.5,
  /** Time to first token, added to the SDK's: p50 and p99 (ms), at most. */
  firstTokenAddedP50Ms: 5,
  firstTokenAddedP99Ms: 15,
  /** Approval resume: resolveApproval → the next model request, p50 and p99 (ms), at most. */
  resumeP50Ms: 10,
  resumeP99Ms: 25,
  /** A turn of 3 tool calls at 200 ms vendor latency: p50 (ms), at most. */
  turnOfThreeMs: 300,
  /** MCP tools/call ÷ executeToolCall over HTTP (same org, same concurrency). */
  mcpOfHttp: 0.8,
} as const;

/** `≥65%` for 0.65. */
export const percent = (ratio: number): string => `${Math.round(ratio * 100)}%`;
