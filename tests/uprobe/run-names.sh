# Sourced by tests/uprobe/run.sh after run-returns.sh (its $RS, $T, $D, life, jq_samples,
# check and nothing_left are run.sh's): section 14, C++ names and where -A finds C++ and
# LLVM-built functions' arguments. Its checks count in run.sh's total.

# 14. C++ (tests/uprobe/ucpp.cc): functions named by their source names in globs (and by
# their symbols still), shown so in the stack, -T, the text view and -U's frames. The oracle
# is binutils' c++filt: every name shown is `c++filt -p` of one of the binary's symbols.
X=$D/ucpp
# the binary's symbols, demangled by c++filt without parameters (a name per line)
nm --defined-only "$X" | awk '{ print $3 }' | c++filt -p | sort -u >"$T/cxxnames"
ucpp_chain="['app::start', 'Server::run', 'Server::handle_request', 'Pool<int>::take', 'parse<long>', 'cfg::open_config']"
cxx_names='(names := set(open(sys.argv[1].rsplit("/", 1)[0] + "/cxxnames").read().split("\n")))'
life -U -e "app::start [$X]" -a "Server::* [$X]" -a "Pool<*>::take [$X]" -a "parse<*> [$X]" \
	-a "_ZN3cfg* [$X]" -- "$X" /nonexistent/cpp 2
check "C++: 2 samples $ucpp_chain, by source-name globs and one by symbol (_ZN3cfg*)" \
	jq_samples "len(s) == 2 and all([f['function'] for f in x['stack']] == $ucpp_chain and x['stack'][-1]['marker'] == '! ' for x in s)"
check "C++: every traced frame's name and symbol is c++filt -p of a symbol of the binary" \
	jq_samples "$cxx_names and all(f['function'] in names and f['symbol'] in names for x in s for f in x['stack'])"
check "C++ -U: the frames above app::start are app::serve and main, no symbol mangled, each c++filt's" \
	jq_samples "$cxx_names and all([f.get('symbol') for f in x['user_stack']['frames']][-2:] == ['main', 'app::serve'] and not any(str(f.get('symbol')).startswith(('_Z', '_R')) for f in x['user_stack']['frames']) and all(f.get('symbol') in names for f in x['user_stack']['frames'][-2:]) for x in s)"
# a deny glob by source name; -T rows by source name
life -T -e "app::start [$X]" -a "Server::* [$X]" -a "Pool<*>::take [$X]" -a "parse<*> [$X]" \
	-a "cfg::open_config [$X]" -d "Server::handle_* [$X]" -- "$X" /nonexistent/cpp 1
check "C++: -d 'Server::handle_*' leaves Server::handle_request out; -T's rows name the functions as the stack does" \
	jq_samples "len(s) == 1 and [f['function'] for f in s[0]['stack']] == ['app::start', 'Server::run', 'Pool<int>::take', 'parse<long>', 'cfg::open_config'] and [r['function'] for r in s[0]['trace'] if r['kind'] != 'exit'] == [f['function'] for f in s[0]['stack']]"
# the text view: a frame's line beside its name, not "(open_config @ ...)" for DWARF's
# name without the namespace or "(parse<long int> @ ...)" for its template arguments
"$RS" -e "app::start [$X]" -a "parse<*> [$X]" -a "cfg::open_config [$X]" -- "$X" /nonexistent/cpp 1 >"$T/out" 2>"$T/err"
check "C++ text: 'cfg::open_config (…ucpp.cc:LINE:COL)', no '(NAME @' for DWARF's unscoped names or its template arguments" \
	eval "grep -qE '^! +[0-9]+us \[-1 ENOENT\] +cfg::open_config +\(tests/uprobe/ucpp\.cc:[0-9]+:[0-9]+\)' '$T/out' && grep -qE '^ +[0-9]+us \[-1 ENOENT\] +parse<long> +\(tests/uprobe/ucpp\.cc:' '$T/out' && ! grep -q ' @ tests/uprobe/ucpp' '$T/out'"
# overloads share a name: a glob of it traces each
"$RS" --dry-run -v -e "Server::handle_request [$X]" >"$T/out" 2>"$T/err"
check "C++: 'Server::handle_request' names both overloads (2 functions), the symbol glob '_ZN6Server14handle_request*' the same" \
	eval "grep -q '^Found 2 user-space functions in 1 images' '$T/out' '$T/err' &&
	      '$RS' --dry-run -v -e '_ZN6Server14handle_request* [$X]' 2>&1 | grep -q '^Found 2 user-space functions in 1 images'"
# -A: Failure (a std::string member: not trivially copyable) is passed as a pointer to a
# copy, so d is the next register, not Failure's bytes; Detail's base members are its own.
# Before: f={.path={._M_string_length=0x7ffc...},.code=1} d=&{.c=16} (d read f's copy)
life -A -e "app::report [$X]" -- "$X" /nonexistent/cpp 1
check "C++ -A: f=&{.path=…16 bytes…,.code=7} (by invisible reference), d=&{{.a=1,.b=2},.c=3} (its base's members)" \
	jq_samples "len(s) == 1 and (a := s[0]['stack'][0]['args']) and [x['name'] for x in a] == ['f', 'd'] and a[0]['kind'] == 'pointee' and a[0]['text'].startswith('&{.path={') and '._M_string_length=16,' in a[0]['text'] and a[0]['text'].endswith(',.code=7}') and a[1]['text'] == '&{{.a=1,.b=2},.c=3}'"
# an allow glob whose every match a deny glob takes out: said so, not "matches no function"
"$RS" --dry-run -e "app::start [$X]" -a "Pool<*>::take [$X]" -d "Pool<int>::* [$X]" >"$T/out" 2>"$T/err"
echo $? >"$T/rc"
check "C++: an allow glob all denied: exit 2, one line (beside the exceptions note) saying the -d glob denies its 1 name" \
	eval "[ \"\$(cat '$T/rc')\" = 2 ] && grep -q \"^'Pool<\\*>::take \\[$X\\]' matches 1 name of $X and a -d glob denies each: narrow the -d glob or drop this one.\$\" '$T/err' && [ \$(grep -vc '^Note: ' '$T/err') = 1 ]"
# the same for a library glob (uprog's libuprog.so: uprog_lib_probe and its alias)
"$RS" --dry-run -e "do_work [$D/uprog]" -a "uprog_lib_* [libuprog.so]" -d "uprog_lib_probe* [libuprog.so]" >"$T/out" 2>"$T/err"
echo $? >"$T/rc"
check "a library allow glob all denied: exit 2, one line saying the -d glob denies its 2 names" \
	eval "[ \"\$(cat '$T/rc')\" = 2 ] && grep -qx \"'uprog_lib_\\* \\[libuprog.so\\]' matches 2 names of the libraries named 'libuprog.so' and a -d glob denies each: narrow the -d glob or drop this one.\" '$T/err' && [ \$(grep -vc '^Note: ' '$T/err') = 1 ]"
# -A: a returned std::string's slot takes the first register; the arguments follow it
# (before: arg0..arg5 raw, describe's DWARF having DW_AT_ranges (a .cold part) and no
# low_pc; with a low_pc, code=(unsupp) what=(unsupp))
life -T -A -e "app::report [$X]" -a "app::describe [$X]" -- "$X" /nonexistent/cpp 1
check "C++ -A: app::describe(code=7, what='/nonexistent/cpp'), its std::string returned through a slot in rdi" \
	jq_samples "len(s) == 1 and [(x['name'], x['text']) for r in s[0]['trace'] if r['function'] == 'app::describe' and r['kind'] in ('entry', 'leaf') for x in r['args']] == [('code', '7'), ('what', \"'/nonexistent/cpp'\")]"
# a function GCC split into hot and cold parts (app::find, app::find.cold) has DW_AT_ranges
# and no low_pc: its return type is still read (a pointer: NULL is its error); before, it
# was unknown, and a NULL return no error (no sample)
check "C++: the g++ build split app::find in two (its [clone .cold] symbol): what the next check is about" \
	eval "nm -C '$X' | grep -qF 'app::find(char const*) [clone .cold]'"
life -e "app::find [$X]" -a "cfg::open_config [$X]" -- "$X" /nonexistent/cpp 1
check "C++: app::find (hot and cold parts) returns NULL: 1 sample app::find [NULL] (pointer) -> cfg::open_config [-1]" \
	jq_samples "len(s) == 1 and [(f['function'], f.get('result_text'), f.get('result_type')) for f in s[0]['stack']] == [('app::find', 'NULL', 'pointer'), ('cfg::open_config', '-1', 'int')]"
# clang -O2 dropped open_it's unused first parameter (path in rdi, DWARF saying the second):
# its arguments are unsupported, not read from the wrong registers (before: unused=0x...,
# path='yZ2I  ' flags=0x...); work's own are right
U=$D/udae
check "clang's DWARF for udae's open_it: unused without a location, path in rdi (DW_OP_reg5): what the next check is about" \
	eval "! readelf --debug-dump=info '$U' | grep -B1 'DW_AT_name.*: unused\$' | grep -q DW_AT_location && readelf --debug-dump=info '$U' | grep -B1 'DW_AT_name.*: path\$' | grep -q 'DW_OP_reg5 (rdi)'"
life -A -e "work [$U]" -a "open_it [$U]" -- "$U" /nonexistent/dae
check "LLVM-dropped parameter: open_it's unused, path, flags (unsupp); work's path='/nonexistent/dae'" \
	jq_samples "len(s) == 1 and [(f['function'], [(a['name'], a['kind']) for a in f['args']]) for f in s[0]['stack'] if f['kind'] == 'traced_user'] == [('work', [('path', 'string')]), ('open_it', [('unused', 'unsupported'), ('path', 'unsupported'), ('flags', 'unsupported')])] and s[0]['stack'][-2]['args'][0]['text'] == \"'/nonexistent/dae'\""
check "C++ names: nothing left attached" nothing_left
