#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <microhttpd.h>

/* MHD_get_daemon_info is variadic, which Swift cannot call: the epoll descriptor of a daemon
   started with MHD_USE_EPOLL, or -1. */
static inline int taxipot_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/* The socket of a connection, or -1. */
static inline int taxipot_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* The application's per-socket context of a connection (set in the connection notification). */
static inline void *taxipot_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* The length of the request head as received (request line, header lines and the empty line
   that ends them), or 0 when unknown. */
static inline size_t taxipot_mhd_request_head_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info ? info->header_size : 0;
}

/* libmicrohttpd's log callback takes a va_list, which Swift cannot receive: this one prints the
   message on stderr as libmicrohttpd would, and calls `on_length_error` when the message is
   about a Content-Length it refuses (its only sign of that refusal). */
struct taxipot_mhd_logger_context {
    void (*on_length_error)(void *cls);
    void *cls;
};

static void taxipot_mhd_logger(void *cls, const char *format, va_list arguments) {
    vfprintf(stderr, format, arguments);
    const struct taxipot_mhd_logger_context *context = cls;
    if (context && context->on_length_error && strstr(format, "Content-Length"))
        context->on_length_error(context->cls);
}

/* taxipot_mhd_logger, as a pointer for MHD_OPTION_EXTERNAL_LOGGER. */
static inline void *taxipot_mhd_logger_function(void) { return (void *)&taxipot_mhd_logger; }

/* glibc's allocator settings (mallopt, malloc_trim) for the server's memory after bulk work. */
#include <malloc.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Lowers the calling thread's scheduling priority to `nice` (Linux: a thread's nice value is its
   own); 0 on success. Raising it back needs privileges, so it is for threads that keep it. */
static inline int taxipot_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}
