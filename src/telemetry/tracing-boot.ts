// The `toolgate` command's first import: tracing starts before `pg` and `http` are required,
// so that their instrumentations see them load.
import { tracingConfig } from '../config';
import { startTracing } from './tracing';

try {
  startTracing(tracingConfig());
} catch {
  // A bad OTEL_* value: tracing stays off here, and loadConfig reports it (exit 2).
}
