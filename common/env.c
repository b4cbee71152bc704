#include "common/env.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

struct env {
	char **vars;     /* "NAME=value", each ours; vars[n] is NULL */
	size_t n, alloc;
};

/* vars' index of name, or e->n */
static size_t env_find(const struct env *e, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->vars[i], name, len) && e->vars[i][len] == '=')
			return i;
	return e->n;
}

static void env_append(struct env *e, char *var)
{
	ALLOC_GROW(e->vars, e->n + 2, e->alloc);
	e->vars[e->n++] = var;
	e->vars[e->n] = NULL;
}

struct env *env_new(char *const *base)
{
	struct env *e = xcalloc(1, sizeof(*e));

	ALLOC_GROW(e->vars, 1, e->alloc);
	e->vars[0] = NULL;
	for (; base && *base; base++)
		if (strchr(*base, '='))    /* a name without '=' is no variable */
			env_append(e, xstrdup(*base));
	return e;
}

void env_set(struct env *e, const char *name, const char *value)
{
	size_t i = env_find(e, name);

	if (i < e->n) {
		free(e->vars[i]);
		memmove(&e->vars[i], &e->vars[i + 1], (e->n - i) * sizeof(*e->vars));
		e->n--;
	}
	if (value)
		env_append(e, xasprintf("%s=%s", name, value));
}

const char *env_get(const struct env *e, const char *name)
{
	size_t i = env_find(e, name);

	return i < e->n ? e->vars[i] + strlen(name) + 1 : NULL;
}

char **env_array(struct env *e)
{
	return e->vars;
}

void env_free(struct env *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		free(e->vars[i]);
	free(e->vars);
	free(e);
}
