// SPDX-License-Identifier: GPL-2.0
/*
 * Prints probectl's option tables (userspace/args.c), one line per option
 * of each command: "COMMAND SHORT LONG ARGH", "-" for a short name or a
 * value it does not have ("watch -i --interval S", "list - --json -"); a
 * command without options is one line "COMMAND - - -".  optcheck.sh holds
 * the man page and the bash completion against this.
 */
#include <stdio.h>
#include "args.h"

int main(void)
{
	const struct pc_opt *o;
	int cmd;

	for (cmd = PC_CMD_LOAD; cmd < PC_NR_CMDS; cmd++) {
		o = pc_cmd_opts(cmd);
		if (!o->lng)
			printf("%s - - -\n", pc_cmd_name(cmd));
		for (; o->lng; o++) {
			if (o->shrt)
				printf("%s -%c --%s %s\n", pc_cmd_name(cmd),
				       o->shrt, o->lng, o->argh ? o->argh : "-");
			else
				printf("%s - --%s %s\n", pc_cmd_name(cmd),
				       o->lng, o->argh ? o->argh : "-");
		}
	}
	return fflush(stdout) || ferror(stdout);
}
