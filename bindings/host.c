/*
 * host.c - the `retrace` program: Lua 5.4 with the project's modules, an
 * interactive REPL, script running and subcommand dispatch.
 *
 *   retrace                      REPL when stdin is a terminal, else run stdin
 *   retrace FILE.lua [args]      run a script (also: retrace run FILE.lua [args])
 *   retrace -e CODE              run a chunk (repeatable)
 *   retrace -i FILE.lua          run, then open the REPL
 *   retrace -                    run a script read from standard input
 *   retrace COMMAND [options]    run scripts/COMMAND.lua through retrace.cli
 *
 * Exit codes: 0 success, 1 bad input (a failing script, an unreadable file),
 * 2 bad usage. Errors go to stderr as "retrace: message".
 *
 * The structure follows lua.c: everything runs inside pmain under lua_pcall,
 * calls go through rt_docall (traceback handler), SIGINT during a call sets a
 * hook that raises "interrupted!".
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <readline/history.h>
#include <readline/readline.h>

#include "bind.h"
#include "rt_par.h"

int luaopen_lfs(lua_State *L);
int luaopen_cjson(lua_State *L);

#define PROGNAME "retrace"
#define PROMPT "retrace> "
#define PROMPT2 "...> "
#define EXIT_BADINPUT 1
#define EXIT_USAGE 2

static lua_State *globalL = NULL;
static volatile sig_atomic_t running_call = 0; /* a Lua call is in progress */
static volatile sig_atomic_t prompt_interrupt = 0; /* Ctrl-C at the prompt */
/* Ctrl-C between two calls of a run (loading modules, before or after a command's call):
 * the next call stops at once, so an early Ctrl-C is never lost; the prompt forgets it */
static volatile sig_atomic_t pending_interrupt = 0;

/* ---------------------------------------------------------------- messages */

static void errmsg(const char *msg)
{
    fprintf(stderr, "%s: %s\n", PROGNAME, msg);
    fflush(stderr);
}

/*
 * Report the error on top of the stack and return the exit code it asks for:
 * a table {exit=N, message=S} (raised by retrace.cli for bad input / usage)
 * gives N and prints S alone; anything else prints the traceback and gives 1.
 */
static int report_error(lua_State *L)
{
    int code = EXIT_BADINPUT;
    if (lua_type(L, -1) == LUA_TTABLE) {
        if (lua_getfield(L, -1, "exit") == LUA_TNUMBER)
            code = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -1, "message");
        const char *m = lua_tostring(L, -1);
        errmsg(m ? m : "error");
        lua_pop(L, 2);
        return code;
    }
    const char *m = lua_tostring(L, -1);
    /* Ctrl-C that came before a command's own handler (while modules load): the same one line */
    const char *nl = m ? strchr(m, '\n') : NULL;
    size_t len = m ? (nl ? (size_t)(nl - m) : strlen(m)) : 0;
    if (len >= 12 && memcmp(m + len - 12, "interrupted!", 12) == 0) {
        errmsg("interrupted");
        lua_pop(L, 1);
        return 130;
    }
    errmsg(m ? m : "(error object without a message)");
    lua_pop(L, 1);
    return code;
}

/* ---------------------------------------------------------------- signals */

static void lstop(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted!");
}

static void on_sigint(int sig)
{
    if (running_call && globalL) {
        /* as lua.c does: a second Ctrl-C before the hook fires (a long C loop
         * that never returns to Lua) takes the default action and ends the program */
        signal(sig, SIG_DFL);
        int flag = LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT;
        lua_sethook(globalL, lstop, flag, 1);
        /* and the C passes that poll for it stop too, with "interrupted!" */
        rt_interrupt_request();
    } else {
        prompt_interrupt = 1;
        pending_interrupt = 1;
    }
}

static void install_sigint(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* Run the function below nargs args with SIGINT able to interrupt it. */
static int docall(lua_State *L, int nargs, int nres)
{
    running_call = 1;
    if (pending_interrupt) { /* a Ctrl-C that came between calls stops this one at its start */
        pending_interrupt = 0;
        lua_sethook(L, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
        rt_interrupt_request();
    }
    int st = rt_docall(L, nargs, nres);
    running_call = 0;
    lua_sethook(L, NULL, 0, 0);
    /* a Ctrl-C the call ended before acting on is kept for the next call */
    if (st == LUA_OK && rt_interrupt_pending())
        pending_interrupt = 1;
    rt_interrupt_clear();
    install_sigint(); /* the first Ctrl-C may have reset it to the default action */
    return st;
}

/* ---------------------------------------------------------------- set-up */

/* Directory holding the executable, from /proc/self/exe (argv0 as fallback). */
static void exe_dir(const char *argv0, char *out, size_t cap)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = '\0';
    } else if (!realpath(argv0, buf)) {
        snprintf(buf, sizeof buf, "%s", argv0);
    }
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(buf, sizeof buf, ".");
    snprintf(out, cap, "%s", buf);
}

static int has_lua_tree(const char *root)
{
    char p[PATH_MAX + 64];
    struct stat st;
    snprintf(p, sizeof p, "%s/lua/retrace/init.lua", root);
    return stat(p, &st) == 0;
}

/*
 * The data root holds lua/, scripts/ and displays/. Looked for in order:
 * $RETRACE_HOME; EXEDIR/share/retrace (build tree); EXEDIR/../share/retrace
 * (installed under PREFIX). Returns 0 when none is found.
 */
static int find_root(const char *argv0, char *root, size_t cap)
{
    const char *env = getenv("RETRACE_HOME");
    if (env && *env) {
        snprintf(root, cap, "%s", env);
        return has_lua_tree(root);
    }
    char dir[PATH_MAX];
    exe_dir(argv0, dir, sizeof dir);
    const char *cands[] = {"%s/share/retrace", "%s/../share/retrace"};
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, cands[i], dir);
        char real[PATH_MAX];
        if (realpath(p, real) && has_lua_tree(real)) {
            snprintf(root, cap, "%s", real);
            return 1;
        }
    }
    return 0;
}

static void preload(lua_State *L, const char *name, lua_CFunction f)
{
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

static void set_paths(lua_State *L, const char *root)
{
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua;", root, root);
    lua_getfield(L, -2, "path");
    lua_concat(L, 2);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
}

/* arg table as lua.c builds it: arg[0] = script, arg[1..] = its arguments. */
static void create_arg(lua_State *L, char **argv, int argc, int script)
{
    lua_createtable(L, argc - script - 1, script + 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script);
    }
    lua_setglobal(L, "arg");
}

/* ---------------------------------------------------------------- running */

static int run_chunk_status(lua_State *L, int status)
{
    if (status == LUA_OK)
        status = docall(L, 0, 0);
    return status == LUA_OK ? 0 : report_error(L);
}

static int run_string(lua_State *L, const char *code)
{
    return run_chunk_status(L, luaL_loadbuffer(L, code, strlen(code), "=(command line)"));
}

/* Run a script with its arguments (argv[script+1..]); "-" is stdin. */
static int run_script(lua_State *L, char **argv, int argc, int script)
{
    const char *fname = argv[script];
    if (strcmp(fname, "-") == 0)
        fname = NULL;
    int status = luaL_loadfile(L, fname);
    if (status == LUA_ERRFILE) {
        /* "cannot open x.lua" is not one line with a reason; say it our way */
        lua_pop(L, 1);
        if (fname) {
            errmsg(lua_pushfstring(L, "%s: %s", fname, strerror(errno ? errno : ENOENT)));
        } else {
            errmsg("cannot read standard input");
        }
        return EXIT_BADINPUT;
    }
    if (status != LUA_OK)
        return report_error(L);
    create_arg(L, argv, argc, script);
    int n = argc - script - 1;
    luaL_checkstack(L, n, "too many arguments to script");
    for (int i = script + 1; i < argc; i++)
        lua_pushstring(L, argv[i]);
    status = docall(L, n, 0);
    return status == LUA_OK ? 0 : report_error(L);
}

/* Dispatch a subcommand to retrace.cli.main(argv[first..]); returns the exit code. */
static int run_command(lua_State *L, char **argv, int argc, int first)
{
    create_arg(L, argv, argc, first - 1);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "retrace.cli");
    if (docall(L, 1, 1) != LUA_OK)
        return report_error(L);
    lua_getfield(L, -1, "main");
    lua_newtable(L);
    for (int i = first; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - first + 1);
    }
    if (docall(L, 1, 1) != LUA_OK)
        return report_error(L);
    int code = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 2);
    return code;
}

/* ---------------------------------------------------------------- REPL */

static char history_path[PATH_MAX];

static void history_setup(void)
{
    const char *env = getenv("RETRACE_HISTORY");
    const char *home = getenv("HOME");
    if (env && *env)
        snprintf(history_path, sizeof history_path, "%s", env);
    else if (home && *home)
        snprintf(history_path, sizeof history_path, "%s/.retrace_history", home);
    else
        history_path[0] = '\0';
    using_history();
    stifle_history(1000);
    if (history_path[0])
        read_history(history_path);
}

static void history_add(const char *line)
{
    if (!line[0])
        return;
    add_history(line);
    if (!history_path[0])
        return;
    /* append at once so the history survives a crash or a kill */
    FILE *f = fopen(history_path, "a");
    if (f)
        fclose(f);
    append_history(1, history_path);
    history_truncate_file(history_path, 1000);
}

/*
 * Tab completion: the word before the cursor (globals, a.b.c fields, a:method)
 * is completed by retrace.repl.complete(word), which returns a list of words.
 */
static char **completions = NULL;

static int complete_in_lua(lua_State *L)
{
    const char *word = lua_tostring(L, 1);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "retrace.repl");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "complete");
    lua_pushstring(L, word);
    lua_call(L, 1, 1);
    return 1;
}

static char *completion_gen(const char *text, int state)
{
    static int idx;
    (void)text;
    if (state == 0)
        idx = 0;
    if (!completions || !completions[idx])
        return NULL;
    return strdup(completions[idx++]);
}

static void free_completions(void)
{
    if (!completions)
        return;
    for (int i = 0; completions[i]; i++)
        free(completions[i]);
    free(completions);
    completions = NULL;
}

static char **attempt_completion(const char *text, int start, int end)
{
    (void)start;
    (void)end;
    lua_State *L = globalL;
    rl_attempted_completion_over = 1; /* no file-name fallback */
    free_completions();
    int top = lua_gettop(L);
    lua_pushcfunction(L, complete_in_lua);
    lua_pushstring(L, text);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
        lua_Integer n = luaL_len(L, -1);
        completions = calloc((size_t)n + 1, sizeof *completions);
        if (completions) {
            int k = 0;
            for (lua_Integer i = 1; i <= n; i++) {
                lua_rawgeti(L, -1, i);
                const char *s = lua_tostring(L, -1);
                if (s)
                    completions[k++] = strdup(s);
                lua_pop(L, 1);
            }
        }
    }
    lua_settop(L, top);
    if (!completions || !completions[0])
        return NULL;
    /* words after a '.' or ':' end with that field; nothing to append */
    rl_completion_append_character = '\0';
    return rl_completion_matches(text, completion_gen);
}

/*
 * readline's own getc goes back to read() after a signal, so the line it was
 * asked to end (rl_done) ends only when the next key arrives, and that key is
 * lost with the dropped line. This getc returns at once instead: on Ctrl-C at the
 * prompt it empties the line and hands readline a newline, which accepts the
 * empty line; read_line then sees prompt_interrupt and drops the chunk.
 */
static int getc_interruptible(FILE *f)
{
    for (;;) {
        unsigned char c;
        ssize_t n = read(fileno(f), &c, 1);
        if (n == 1)
            return c;
        if (n == 0)
            return EOF;
        if (errno != EINTR)
            return EOF;
        if (prompt_interrupt) {
            rl_replace_line("", 0);
            rl_echo_signal_char(SIGINT);
            return '\n';
        }
    }
}

static int interactive_input = 0;
#define CANCELLED (-2) /* load_statement: input dropped by Ctrl-C */

/* One line of input; NULL on end of file. The caller frees it. */
static char *read_line(const char *prompt)
{
    if (interactive_input) {
        prompt_interrupt = 0;
        pending_interrupt = 0;
        char *l = readline(prompt);
        if (prompt_interrupt && l)
            l[0] = '\0'; /* load_statement sees prompt_interrupt and drops the chunk */
        return l;
    }
    fputs(prompt, stdout);
    fflush(stdout);
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getline(&buf, &cap, stdin);
    if (n < 0) {
        free(buf);
        return NULL;
    }
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = '\0';
    return buf;
}

/* Is the chunk on top of the stack incomplete (syntax error at <eof>)? */
static int incomplete(lua_State *L, int status)
{
    if (status == LUA_ERRSYNTAX) {
        size_t lmsg;
        const char *msg = lua_tolstring(L, -1, &lmsg);
        const char *mark = "<eof>";
        size_t lmark = strlen(mark);
        if (lmsg >= lmark && strcmp(msg + lmsg - lmark, mark) == 0) {
            lua_pop(L, 1);
            return 1;
        }
    }
    return 0;
}

/*
 * Read one statement, possibly over several lines. Pushes the compiled chunk
 * and returns LUA_OK, or pushes an error message; returns -1 at end of input.
 */
static int load_statement(lua_State *L)
{
    char *line = read_line(PROMPT);
    if (!line)
        return -1;
    if (prompt_interrupt) {
        free(line);
        lua_pushliteral(L, "");
        return CANCELLED; /* special: nothing to run */
    }
    /* first try as an expression */
    const char *retline = lua_pushfstring(L, "return %s;", line);
    int status = luaL_loadbuffer(L, retline, strlen(retline), "=stdin");
    if (status == LUA_OK) {
        lua_remove(L, -2);
        history_add(line);
        free(line);
        return LUA_OK;
    }
    lua_pop(L, 2);
    /* then as a statement, reading more lines while it is incomplete */
    lua_pushstring(L, line);
    free(line);
    for (;;) {
        size_t len;
        const char *chunk = lua_tolstring(L, -1, &len);
        status = luaL_loadbuffer(L, chunk, len, "=stdin");
        if (!incomplete(L, status))
            break;
        char *more = read_line(PROMPT2);
        if (!more || prompt_interrupt) {
            free(more);
            lua_pop(L, 1);
            lua_pushliteral(L, "");
            return more ? CANCELLED : -1;
        }
        lua_pushliteral(L, "\n");
        lua_pushstring(L, more);
        free(more);
        lua_concat(L, 3); /* previous text .. "\n" .. more */
    }
    {
        const char *all = lua_tostring(L, -2);
        history_add(all);
    }
    lua_remove(L, -2);
    return status;
}

/* Print the values left by a REPL call through retrace.repl.print (pretty). */
static void print_results(lua_State *L, int base)
{
    int n = lua_gettop(L) - base;
    if (n <= 0)
        return;
    lua_getglobal(L, "require");
    lua_pushliteral(L, "retrace.repl");
    if (lua_pcall(L, 1, 1, 0) == LUA_OK) {
        lua_getfield(L, -1, "print");
        lua_remove(L, -2);
    } else {
        lua_pop(L, 1);
        lua_getglobal(L, "print");
    }
    lua_insert(L, base + 1);
    if (lua_pcall(L, n, 0, 0) != LUA_OK)
        errmsg(lua_pushfstring(L, "error calling print (%s)", lua_tostring(L, -1)));
    lua_settop(L, base);
}

static void repl(lua_State *L)
{
    interactive_input = isatty(STDIN_FILENO);
    if (interactive_input) {
        rl_readline_name = PROGNAME;
        rl_attempted_completion_function = attempt_completion;
        rl_basic_word_break_characters = " \t\n\"\\'><=;+-*/%^~#{}()[],&|";
        rl_completer_word_break_characters = rl_basic_word_break_characters;
        rl_getc_function = getc_interruptible;
        rl_catch_signals = 0; /* keep our SIGINT handler; reads return EINTR */
        history_setup();
        printf("retrace %s (%s) - Ctrl-D quits, help() lists modules\n", RETRACE_VERSION,
               LUA_RELEASE);
    }
    lua_getglobal(L, "require");
    lua_pushliteral(L, "retrace.repl");
    if (lua_pcall(L, 1, 1, 0) == LUA_OK) {
        lua_getfield(L, -1, "setup");
        if (lua_pcall(L, 0, 0, 0) != LUA_OK)
            report_error(L);
    } else {
        report_error(L);
    }
    lua_settop(L, 0);
    for (;;) {
        int base = lua_gettop(L);
        int status = load_statement(L);
        if (status == -1)
            break;
        if (status == CANCELLED) {
            lua_settop(L, base);
            continue;
        }
        if (status == LUA_OK)
            status = docall(L, 0, LUA_MULTRET);
        if (status == LUA_OK) {
            print_results(L, base);
        } else {
            const char *m = lua_tostring(L, -1);
            if (!m && lua_istable(L, -1)) {
                lua_getfield(L, -1, "message");
                m = lua_tostring(L, -1);
            }
            fprintf(stderr, "%s\n", m ? m : "(error object is not a string)");
            fflush(stderr);
        }
        lua_settop(L, base);
    }
    lua_settop(L, 0);
    fputc('\n', stdout);
    fflush(stdout);
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: retrace [options] [FILE.lua [args] | COMMAND [options] FILES]\n"
            "  (no arguments)   interactive REPL (or run standard input when it is not a terminal)\n"
            "  FILE.lua [args]  run a Lua script with arg set (also: retrace run FILE.lua)\n"
            "  -                run a script read from standard input\n"
            "  -e CODE          run CODE (repeatable)\n"
            "  -i               open the REPL after running the script or -e code\n"
            "  -v, --version    print the version\n"
            "  -h, --help       this help; 'retrace help' lists the commands\n"
            "Exit codes: 0 success, 1 bad input, 2 bad usage.\n");
}

static int looks_like_script(const char *a)
{
    size_t n = strlen(a);
    if (strcmp(a, "-") == 0 || strchr(a, '/'))
        return 1;
    if (n > 4 && strcmp(a + n - 4, ".lua") == 0)
        return 1;
    return 0;
}

struct host_args {
    int argc;
    char **argv;
    int code; /* exit code */
};

static int pmain(lua_State *L)
{
    struct host_args *ha = lua_touserdata(L, 1);
    int argc = ha->argc;
    char **argv = ha->argv;

    luaL_checkversion(L);
    luaL_openlibs(L);
    preload(L, "lfs", luaopen_lfs);
    preload(L, "cjson", luaopen_cjson);
    preload(L, "retrace.core", luaopen_retrace_core);
    char root[PATH_MAX];
    if (!find_root(argv[0], root, sizeof root)) {
        errmsg("cannot find the retrace Lua files (lua/retrace/init.lua); set RETRACE_HOME");
        ha->code = EXIT_BADINPUT;
        return 0;
    }
    set_paths(L, root);
    /* the `retrace` global: the module, ready in scripts and the REPL */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "retrace");
    if (docall(L, 1, 1) != LUA_OK) {
        ha->code = report_error(L);
        return 0;
    }
    lua_setglobal(L, "retrace");
    install_sigint();

    int i = 1, want_repl = 0, ran = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-e") == 0) {
            if (i + 1 >= argc) {
                errmsg("-e needs an argument");
                usage(stderr);
                ha->code = EXIT_USAGE;
                return 0;
            }
            create_arg(L, argv, argc, 0);
            int c = run_string(L, argv[++i]);
            ran = 1;
            if (c) {
                ha->code = c;
                return 0;
            }
        } else if (strcmp(a, "-i") == 0) {
            want_repl = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) {
            printf("retrace %s (%s)\n", RETRACE_VERSION, LUA_RELEASE);
            return 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (a[0] == '-' && a[1] != '\0') {
            errmsg(lua_pushfstring(L, "unknown option '%s'", a));
            usage(stderr);
            ha->code = EXIT_USAGE;
            return 0;
        } else {
            break;
        }
    }
    if (i < argc) {
        const char *a = argv[i];
        if (strcmp(a, "run") == 0) {
            if (i + 1 >= argc) {
                errmsg("run: missing script (usage: retrace run FILE.lua [args])");
                ha->code = EXIT_USAGE;
                return 0;
            }
            ha->code = run_script(L, argv, argc, i + 1);
        } else if (looks_like_script(a)) {
            ha->code = run_script(L, argv, argc, i);
        } else {
            ha->code = run_command(L, argv, argc, i);
            return 0;
        }
        ran = 1;
        if (ha->code)
            return 0;
    }
    if (want_repl || (!ran && isatty(STDIN_FILENO))) {
        if (!ran)
            create_arg(L, argv, argc, 0);
        repl(L);
    } else if (!ran) {
        /* no arguments and stdin is not a terminal: run it as a script */
        char *dash[] = {argv[0], (char *)"-"};
        ha->code = run_script(L, dash, 2, 1);
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* Ctrl-C from the first moment: one that comes while modules load stops the first call */
    install_sigint();
    /* under mpirun / srun this process is one rank of the job (rt_par.h) */
    rt_err perr;
    rt_err_clear(&perr);
    if (rt_par_init(&argc, &argv, &perr) != RT_OK) {
        errmsg(perr.msg);
        return EXIT_FAILURE;
    }
    lua_State *L = luaL_newstate();
    if (!L) {
        errmsg("cannot create Lua state: not enough memory");
        return EXIT_FAILURE;
    }
    globalL = L;
    struct host_args ha = {argc, argv, 0};
    lua_pushcfunction(L, pmain);
    lua_pushlightuserdata(L, &ha);
    int status = lua_pcall(L, 1, 0, 0);
    if (status != LUA_OK)
        ha.code = report_error(L);
    lua_close(L);
    globalL = NULL;
    /* a failure the other ranks did not agree to (they may wait in a collective): end the
     * whole job, the message printed already (mpirun -q adds nothing to it) */
    if (ha.code != 0 && !rt_par_settled())
        rt_par_abort(ha.code);
    rt_par_finalize();
    /* a full disk or a closed pipe on standard output is an error, not a success:
     * the last buffered block is only written here */
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "standard output: %s", strerror(errno ? errno : EIO));
        errmsg(msg);
        if (ha.code == 0)
            ha.code = EXIT_FAILURE;
    }
    return ha.code;
}
