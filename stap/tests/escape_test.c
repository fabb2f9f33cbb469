/* User-space harness for the JSON escaper embedded in
 * stap/tapset/staprelay.stp (__srl_esc_n).  stap/check.sh extracts the C
 * body between SRL_ESCAPE_BEGIN and SRL_ESCAPE_END into escape_body.h.
 *
 * stdin: one test per line, "<max> <input as hex>"; stdout: output as hex.
 * MAXSTRINGLEN is set on the command line (the runtime default is 512). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void srl_escape(const char *s_in, long max_in, char *ret)
{
	char s[MAXSTRINGLEN];
	strncpy(s, s_in, MAXSTRINGLEN - 1);	/* stap strings are MAXSTRINGLEN-capped */
	s[MAXSTRINGLEN - 1] = '\0';
#define STAP_ARG_s s
#define STAP_ARG_max max_in
#define STAP_RETVALUE ret
#include "escape_body.h"
#undef STAP_ARG_s
#undef STAP_ARG_max
#undef STAP_RETVALUE
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	return -1;
}

int main(void)
{
	static char line[8192], in[4096], out[MAXSTRINGLEN + 16];
	while (fgets(line, sizeof line, stdin)) {
		long max = strtol(line, NULL, 10);
		char *h = strchr(line, ' ');
		size_t n = 0;
		if (!h) return 2;
		for (h++; hexval(h[0]) >= 0 && hexval(h[1]) >= 0 && n < sizeof in - 1; h += 2)
			in[n++] = (char)(hexval(h[0]) * 16 + hexval(h[1]));
		in[n] = '\0';
		memset(out, 0x55, sizeof out);
		srl_escape(in, max, out);
		if (strlen(out) > MAXSTRINGLEN - 1) return 3;
		for (n = 0; out[n]; n++)
			printf("%02x", (unsigned char)out[n]);
		printf("\n");
	}
	return 0;
}
