#include "exec_lines.hpp"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace convcheck_exec {

bool write_line(int fd, const std::string& text) {
    const std::string whole = text + "\n";
    std::size_t done = 0;
    while (done < whole.size()) {
        const ssize_t n = write(fd, whole.data() + done, whole.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

bool take_line(std::string& buffer, std::string* line) {
    const std::size_t end = buffer.find('\n');
    if (end == std::string::npos) return false;
    *line = buffer.substr(0, end);
    buffer.erase(0, end + 1);
    return true;
}

bool read_available(int fd, std::string& buffer) {
    char chunk[65536];
    while (true) {
        const ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        buffer.append(chunk, static_cast<std::size_t>(n));
        return true;
    }
}

ReadResult read_line(int fd, std::string& buffer, std::string* line) {
    while (!take_line(buffer, line)) {
        char chunk[65536];
        const ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return ReadResult::error;
        if (n == 0) return ReadResult::closed;
        buffer.append(chunk, static_cast<std::size_t>(n));
    }
    return ReadResult::line;
}

namespace {

// One byte and room for one file descriptor: the message both ends of send_descriptor pass (not copyable: it points
// into itself).
struct DescriptorMessage {
    char byte = 'f';
    iovec io{};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr m{};
    DescriptorMessage() {
        io.iov_base = &byte;
        io.iov_len = 1;
        m.msg_iov = &io;
        m.msg_iovlen = 1;
        m.msg_control = control;
        m.msg_controllen = sizeof(control);
    }
    DescriptorMessage(const DescriptorMessage&) = delete;
    DescriptorMessage& operator=(const DescriptorMessage&) = delete;
};

}  // namespace

bool send_descriptor(int socket, int fd) {
    DescriptorMessage message;
    msghdr& m = message.m;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
    while (true) {
        const ssize_t n = sendmsg(socket, &m, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        return n == 1;
    }
}

int receive_descriptor(int socket) {
    DescriptorMessage message;
    msghdr& m = message.m;
    while (true) {
        const ssize_t n = recvmsg(socket, &m, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        break;
    }
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    if (c == nullptr || c->cmsg_type != SCM_RIGHTS) return -1;
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
    return fd;
}

}  // namespace convcheck_exec
