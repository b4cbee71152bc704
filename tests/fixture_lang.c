/* fixture_lang.c - a binary that tells its language the way rustc
 * (-DLANG_RUST: .comment "rustc version ..."), an older rustc
 * (-DLANG_RUST_OLD: only the standard library's rust_eh_personality in
 * the symbol table) or the Go linker (-DLANG_GO: a .go.buildinfo
 * section) does, without debug info, for tests/test_symbolizer.c's
 * symbolizer_language(). */
#if defined(LANG_RUST)
__asm__(".pushsection .comment,\"MS\",@progbits,1\n"
	".asciz \"rustc version 1.63.0 (4b91a6ea7 2022-08-08)\"\n"
	".popsection\n");
#elif defined(LANG_GO)
__asm__(".pushsection .go.buildinfo,\"a\"\n"
	".asciz \"\\377 Go buildinf:\"\n"
	".popsection\n");
#elif defined(LANG_RUST_OLD)
void rust_eh_personality(void);
void rust_eh_personality(void)
{
}
#endif

int main(void)
{
	return 0;
}
