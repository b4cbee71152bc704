/* env.h - a child's environment, built without touching contend's own.
 *
 * setenv() in a process with threads races every getenv() (glibc frees
 * the old array under no lock a reader takes), and contend has threads
 * when it starts a target (the instruments' self-test, libdw's).  So it
 * never edits its environment: it copies environ into an env, changes
 * the copy, and hands env_array() to execvpe() in the child.
 *
 * env_set() with a NULL value removes the name.  env_get() returns the
 * value or NULL.  The array stays valid until the next env_set() or
 * env_free(); it is built before fork(), so the child only reads it.
 */
#ifndef CONTEND_ENV_H
#define CONTEND_ENV_H

struct env;

struct env *env_new(char *const *base);
void env_set(struct env *e, const char *name, const char *value);
const char *env_get(const struct env *e, const char *name);
char **env_array(struct env *e);
void env_free(struct env *e);

#endif
