/* pcp_archive: the PCP reader's archive replay: every record of each
 * source's archive in order (pmFetchArchive), each event record kept
 * when its own time lies in the -S/-T window, read by pcp_window_parse
 * against the span of all the archives (or each its own, for diff's two
 * sides) widened to the records' own times.  The rules are
 * pcp_input.h's ("Archive", "Farms").  Internal to client/input's PCP
 * reader (pcp_reader.h). */
#ifndef STAPRELAY_PCP_ARCHIVE_H
#define STAPRELAY_PCP_ARCHIVE_H

#include "client/input/pcp_reader.h"
#include "common/strbuf.h"

/* Replay the n open archive sources srcs.  Returns 0, 1 (an archive
 * could not be read) or 2 (a bad -S/-T), with a message in err. */
int pcp_archive_replay(reader *rd, source *srcs, int n, strbuf *err);

#endif
