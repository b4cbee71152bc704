#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
/* bfd.h of some binutils releases refuses to be included without these. */
#ifndef PACKAGE
#define PACKAGE "contend"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

#include <bfd.h>

#include "symbolize/demangle.h"
#include "common/util.h"

/* From libiberty's demangle.h, which binutils-dev does not install. */
#ifndef DMGL_PARAMS
#define DMGL_PARAMS (1 << 0)	/* include function arguments */
#define DMGL_ANSI   (1 << 1)	/* include const, volatile, etc. */
#endif

char *demangle(const char *name)
{
	char *out;

	if (!name)
		return NULL;
	/* A NULL bfd selects no leading-underscore stripping: right for ELF. */
	out = bfd_demangle(NULL, name, DMGL_PARAMS | DMGL_ANSI);
	return out ? out : xstrdup(name);
}
