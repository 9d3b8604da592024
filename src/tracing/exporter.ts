import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../log/index.js';

/**
 * How long one export may take: a collector that is slow or not there costs a batch, never the stop of a
 * server. The exporter retries a failed batch within this time, on timers that keep a stopping process
 * alive (its default of 10 s kept one alive 6 s with no collector): below its first backoff (1 s, less 20%
 * jitter) it never retries, so nothing of it outlives a stop.
 */
export const EXPORT_TIMEOUT_MS = 500;

/**
 * The SDK's OTLP/HTTP exporter (JSON bodies), within `EXPORT_TIMEOUT_MS` a batch, saying once when spans stop
 * reaching the collector and once when they reach it again: one line a change, never one a batch, so that
 * a collector that is down neither goes unnoticed nor floods the log.
 */
export function createOtlpExporter(options: { url: string; logger: Logger }): SpanExporter {
  const { url, logger } = options;
  const exporter = new OTLPTraceExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS });
  let failing = false;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code === ExportResultCode.FAILED && !failing) {
          failing = true;
          logger.warn(
            { collector: url, reason: result.error?.message },
            'could not export spans to the OTLP collector: dropping them until it answers',
          );
        } else if (result.code === ExportResultCode.SUCCESS && failing) {
          failing = false;
          logger.info({ collector: url }, 'exporting spans to the OTLP collector again');
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
}
