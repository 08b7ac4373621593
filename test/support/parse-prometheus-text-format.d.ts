/** Types of parse-prometheus-text-format (the package ships none), as far as the tests use it. */
declare module "parse-prometheus-text-format" {
  /** One series: `value` for counters and gauges; `quantiles`, `count` and `sum` for summaries. */
  export interface ParsedSeries {
    readonly labels?: Readonly<Record<string, string>>;
    readonly value?: string;
    readonly quantiles?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
    readonly buckets?: Readonly<Record<string, string>>;
  }
  /** One metric family. */
  export interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED";
    readonly metrics: readonly ParsedSeries[];
  }
  /** Parses the text format; throws on a line it cannot read. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
