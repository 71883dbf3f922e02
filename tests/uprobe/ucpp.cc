// SPDX-License-Identifier: BSD-2-Clause
/*
 * C++ names (tests/uprobe/run-returns.sh): mangled symbols named by their source names.
 * app::serve -> app::start -> Server::run -> Server::handle_request(const char *) ->
 * Pool<int>::take -> parse<long> -> cfg::open_config fails an open() on PATH, N times
 * (default 1); app::serve is -U's C++ frame above a session that app::start begins:
 *
 *   ucpp PATH [N]
 *
 * handle_request has an overload (int) and run a const twin, neither called: a glob by
 * name traces every overload, the call's file:line says which one ran.
 *
 * Then app::report(Failure, const Detail &) fails (-1) once, for -A: a class that isn't
 * trivially copyable (a std::string member) is passed as a pointer to a copy, and a derived
 * class's base members are its own (Failure{PATH, 7}, Detail{{1, 2}, 3}); it calls
 * app::describe(7, PATH), whose std::string result is returned through a slot the caller
 * passes in the first argument register (x86-64). Last app::find(PATH) returns NULL.
 */
#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cfg {
__attribute__((noipa)) int open_config(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}
}

template <typename T>
__attribute__((noipa)) int parse(T len, const char *path)
{
	int fd = cfg::open_config(path);

	return fd < 0 ? fd : (int)len;
}

template <typename T>
struct Pool {
	T slots;
	__attribute__((noipa)) int take(const char *path)
	{
		return parse<long>(slots, path);
	}
};

class Server {
public:
	__attribute__((noipa)) int handle_request(const char *path)
	{
		Pool<int> pool{1};

		return pool.take(path);
	}
	__attribute__((noipa)) int handle_request(int fd)
	{
		return fd < 0 ? -1 : close(fd);
	}
	__attribute__((noipa)) int run(const char *path)
	{
		return handle_request(path);
	}
	__attribute__((noipa)) int run(const char *path) const
	{
		return path ? 0 : -1;
	}
};

struct Failure {
	std::string path;
	int code;
};

struct Base {
	int a;
	long b;
};

struct Detail : Base {
	int c;
};

namespace app {
__attribute__((noipa)) std::string describe(int code, const char *what)
{
	return std::string(what) + ":" + std::to_string(code);
}

__attribute__((noipa)) int report(Failure f, const Detail &d)
{
	/* a heap string: a literal's page may not be in memory yet, which BPF can't fault in */
	return describe(f.code, f.path.c_str()) == f.path + ":7" && d.c == 3 ? -1 : 0;
}

__attribute__((noipa)) int start(const char *path)
{
	Server s;

	return s.run(path);
}

/*
 * NULL when PATH can't be opened: an error by its pointer type, which DWARF gives though
 * GCC splits the function in two (app::find and app::find.cold: DW_AT_ranges, no low_pc)
 */
__attribute__((cold, noipa)) void complain(const char *what)
{
	fprintf(stderr, "find: %s\n", what);
}

__attribute__((noipa)) Server *find(const char *path)
{
	static Server server;
	int fd;

	if (__builtin_expect(!path || !*path, 0)) {
		complain("no path");
		return nullptr;
	}
	fd = cfg::open_config(path);
	if (fd < 0)
		return nullptr;
	close(fd);
	return &server;
}

__attribute__((noipa)) int serve(const char *path, int n)
{
	int i, fails = 0;

	for (i = 0; i < n; i++)
		fails += start(path) < 0;
	return fails;
}
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 1, fails;

	if (argc < 2)
		return 2;
	fails = app::serve(argv[1], n);
	fails -= app::report(Failure{argv[1], 7}, Detail{{1, 2}, 3}) + 1;
	fails -= app::find(argv[1]) == nullptr ? 0 : 1;
	/* keep the overloads that are never called */
	fails += Server().handle_request(-1) < 0 ? 0 : 1;
	fails += static_cast<const Server &>(Server()).run(argv[1]);
	return fails == n ? 0 : 1;
}
