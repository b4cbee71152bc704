/* demangle.h - C++ (and Rust legacy) symbol names to source form.
 * Returns a malloc'd string; a name that is not mangled is returned copied. */
#ifndef CONTEND_DEMANGLE_H
#define CONTEND_DEMANGLE_H
char *demangle(const char *name);
#endif
