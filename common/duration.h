/* duration: the one rule for a run's duration, as the client's
 * `run -T` and the PMDA's run requests (`duration=` in
 * staprelay.control.runs.request) take it: a decimal number of seconds
 * ("20", "1.5"), optionally followed by a unit -- s sec secs second
 * seconds, ms msec msecs, m min mins minute minutes, h hour hours --
 * more than 0 and at most 366 days.  (Other times the client takes, -t
 * and -S/-T windows, follow PCP's pmParseInterval/pmParseTimeWindow.) */
#ifndef STAPRELAY_DURATION_H
#define STAPRELAY_DURATION_H

#define DURATION_MAX_SECONDS (366.0 * 86400)

/* Seconds, or -1 when s is not a duration by the rule above. */
double duration_parse(const char *s);

#endif
