/* cmd_jit.h - the dy2st subcommands of to_static: convert, program, save, trace, export. */
#ifndef DY2ST_CMD_JIT_H
#define DY2ST_CMD_JIT_H

#include <stdarg.h>

/* The exit statuses of every command. */
enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2 };

/* Each takes argv[0] = the subcommand's name and returns the exit status
 * (0, 1 on an error, 2 on a usage error). */
int cmd_convert(int argc, char **argv);
int cmd_program(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_export(int argc, char **argv);

extern const char cmd_convert_args[], cmd_convert_summary[], cmd_convert_help[];
extern const char cmd_program_args[], cmd_program_summary[], cmd_program_help[];
extern const char cmd_save_args[], cmd_save_summary[], cmd_save_help[];
extern const char cmd_trace_args[], cmd_trace_summary[], cmd_trace_help[];
extern const char cmd_export_args[], cmd_export_summary[], cmd_export_help[];

/* Matches argv[*i] against option `name` (or its short form `alt`, may be
 * NULL) taking a value, as "--name VALUE" or "--name=VALUE": 1 and *val set
 * on a match, 0 when argv[*i] is another option, -1 when the value is
 * missing. Shared by every subcommand (defined in dy2st.c). */
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char *alt,
                  const char **val);

/* Prints "dy2st: error: " and the message; for EXIT_USAGE also the usage
 * line of command cmd (its synopsis args), or a pointer to 'dy2st help' when
 * cmd is NULL. Returns status. Shared by every subcommand (dy2st.c). */
/* Turns on the cache of parsed sources in opt unless the environment's
 * DY2ST_CACHE is 0, off or no; DY2ST_CACHE_DIR names its directory (default:
 * __dy2st_cache__ beside each source). Shared by every subcommand that runs
 * a script (dy2st.c); opt is a d2_interp_options. */
struct d2_interp_options;
void cli_cache_options(struct d2_interp_options *opt);

int cli_vreport(int status, const char *cmd, const char *args, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
