/* The per-listener work of forwarding one received Opus packet, compiled (rtc/passthrough.py,
 * docs/voice-protocol.md «Forwarding»): for each listener of the publisher, the outgoing
 * numbers (`Renumbering`), the RTP header, SRTP with the listener's own libsrtp session and
 * `sendto` on the UDP socket of his ICE pair, in one call per received packet instead of a
 * chain of Python calls per listener (docs/performance.md «Half the CPU»).
 *
 * libsrtp is pylibsrtp's (its `_binding` links it statically): Python hands over the address
 * of its `srtp_protect` and each session's `srtp_t`, so no second libsrtp is linked and the
 * sessions aiortc keyed are the ones used. Python keeps the routes, what a RED packet becomes
 * for each kind of listener, the answers to NACKs (from `history`, filled here), the TURN
 * relays and every decision taken at a failure (`Stream.fail`, `Stream.relay`, `retarget`). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* rtc/gate.py: a sequence jump of more packets than this (2 s) is a pause, not loss. */
#define MAX_GAP 100
#define SAMPLES_PER_FRAME 960
#define CLOCK_RATE 48000
/* A sender report's clock pair is refreshed every this many packets. */
#define CLOCK_PAIR_EVERY 8
/* pylibsrtp's buffer (1500 bytes) less SRTP's longest trailer (SRTP_MAX_TRAILER_LEN), the
 * longest RTP packet its own `protect` takes. */
#define SRTP_MAX_TRAILER_LEN 144
#define MAX_PLAIN (1500 - SRTP_MAX_TRAILER_LEN)
#define NTP_UNIX_OFFSET 2208988800ULL

/* pylibsrtp 1.0.0's cdef: srtp_err_status_t srtp_protect(srtp_t, void *, int *), and
 * srtp_unprotect's, the same. */
typedef int (*protect_fn)(void *ctx, void *rtp, int *len);
/* pylibsrtp's buffer: the longest SRTP packet its own `unprotect` takes. */
#define MAX_PROTECTED 1500

static PyObject *srtp_error;  /* pylibsrtp.Error */
static PyObject *str_enabled, *str_state, *str_packets, *str_octets, *str_ntp, *str_rtp,
    *str_tx_bytes, *str_tx_packets, *str_fail, *str_relay, *str_retarget, *str_error_received,
    *one;

/* ---- Renumbering ------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *source;  /* the source of the newest packet (any identity) */
    long seq_offset, ts_offset;
    long newest;       /* highest incoming seq of the current source, -1: none */
    long last_seq;     /* outgoing numbers of the newest packet sent */
    long last_ts;
    double last_time;
    int started;
} Renumbering;

static long seq_delta(long newer, long older)
{
    /* newer − older of two 16-bit sequence numbers, in −32768..32767 */
    return ((newer - older + 32768) % 65536 + 65536) % 65536 - 32768;
}

/* Outgoing numbers for incoming `seq`/`ts` of `source` at `now`; 0 for a duplicate.
 * rtc/gate.py's docstring says why: within one source a gap stays a gap and a late packet
 * keeps its place; a new source or a jump after a pause continues the stream. */
static int renumber(Renumbering *r, long seq, long ts, PyObject *source, double now,
                    long *out_seq, long *out_ts)
{
    long delta = r->newest < 0 ? MAX_GAP + 1 : seq_delta(seq, r->newest);
    if (source != r->source || labs(delta) > MAX_GAP) {
        if (r->started) {
            long elapsed = (long)((now - r->last_time) * CLOCK_RATE);
            r->ts_offset = r->last_ts + (elapsed > SAMPLES_PER_FRAME ? elapsed : SAMPLES_PER_FRAME) - ts;
        } else {
            r->ts_offset = 0;
        }
        r->seq_offset = r->last_seq + 1 - seq;
        r->started = 1;
        Py_INCREF(source);
        Py_XSETREF(r->source, source);
        delta = 1;
    } else if (delta == 0) {
        return 0;
    }
    *out_seq = ((seq + r->seq_offset) % 65536 + 65536) % 65536;
    *out_ts = (long)((((int64_t)ts + r->ts_offset) % 4294967296LL + 4294967296LL) % 4294967296LL);
    if (delta > 0) {
        r->newest = seq;
        r->last_seq = *out_seq;
        r->last_ts = *out_ts;
        r->last_time = now;
    }
    return 1;
}

static int Renumbering_init(Renumbering *self, PyObject *args, PyObject *kwds)
{
    Py_CLEAR(self->source);
    self->seq_offset = self->ts_offset = 0;
    self->newest = -1;
    self->last_seq = -1;
    self->last_ts = 0;
    self->last_time = 0.0;
    self->started = 0;
    return 0;
}

static PyObject *Renumbering_map(Renumbering *self, PyObject *args)
{
    long seq, ts, out_seq, out_ts;
    PyObject *source;
    double now;
    if (!PyArg_ParseTuple(args, "llOd", &seq, &ts, &source, &now))
        return NULL;
    if (!renumber(self, seq & 0xFFFF, ts & 0xFFFFFFFFL, source, now, &out_seq, &out_ts))
        Py_RETURN_NONE;
    return Py_BuildValue("ll", out_seq, out_ts);
}

static int Renumbering_traverse(Renumbering *self, visitproc visit, void *arg)
{
    Py_VISIT(self->source);
    return 0;
}

static int Renumbering_clear(Renumbering *self)
{
    Py_CLEAR(self->source);
    return 0;
}

static void Renumbering_dealloc(Renumbering *self)
{
    PyObject_GC_UnTrack(self);
    Py_TYPE(self)->tp_clear((PyObject *)self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Renumbering_methods[] = {
    {"map", (PyCFunction)Renumbering_map, METH_VARARGS,
     "map(seq, ts, source, now) -> (seq, ts) | None: the outgoing numbers of one stream for\n"
     "an incoming packet of `source` at `now` (monotonic seconds); None for a duplicate."},
    {NULL}};

static PyTypeObject RenumberingType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rtc._forward.Renumbering",
    .tp_doc = "The sequence numbers and timestamps of one outgoing stream (rtc/gate.py).",
    .tp_basicsize = sizeof(Renumbering),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Renumbering_init,
    .tp_traverse = (traverseproc)Renumbering_traverse,
    .tp_clear = (inquiry)Renumbering_clear,
    .tp_dealloc = (destructor)Renumbering_dealloc,
    .tp_methods = Renumbering_methods,
};

/* ---- Stream -------------------------------------------------------------------------- */

typedef struct {
    Renumbering numbers;
    PyObject *sender, *dtls, *connected;  /* aiortc's RTCRtpSender, its DTLS transport, State.CONNECTED */
    PyObject *rest;                       /* the header's fixed bytes after the timestamp: SSRC, mid */
    PyObject *history;                    /* list: the last packets sent, at seq % len */
    PyObject *kind;                       /* (opus, red) payload types: the key of `variants` */
    PyObject *session;                    /* the pylibsrtp.Session, kept alive for `srtp` */
    PyObject *nominated;                  /* aioice's nominated pairs (dict), read per packet */
    PyObject *pair, *protocol, *sock;     /* the pair sent to; its protocol; its socket or NULL */
    protect_fn protect;
    void *srtp;
    struct sockaddr_storage address;
    socklen_t address_size;
    int first, opus, red;                 /* the header's first byte; payload types (−1: none) */
    unsigned seq_origin, ts_origin;
    uint64_t packets, octets;
} Stream;

static int Stream_init(Stream *self, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"sender", "dtls", "connected", "first", "rest", "history", "opus",
                            "red", "origins", "protect", "srtp", "session", "nominated", NULL};
    PyObject *sender, *dtls, *connected, *rest, *history, *opus, *red, *session, *nominated;
    unsigned long long protect, srtp;
    int first;
    unsigned seq_origin, ts_origin;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOiSO!OO(II)KKOO!:Stream", names, &sender,
                                     &dtls, &connected, &first, &rest, &PyList_Type, &history,
                                     &opus, &red, &seq_origin, &ts_origin, &protect, &srtp,
                                     &session, &PyDict_Type, &nominated))
        return -1;
    if (PyList_GET_SIZE(history) == 0) {
        PyErr_SetString(PyExc_ValueError, "the history needs a place");
        return -1;
    }
    if (Renumbering_init(&self->numbers, NULL, NULL) < 0)
        return -1;
    self->opus = opus == Py_None ? -1 : (int)PyLong_AsLong(opus);
    self->red = red == Py_None ? -1 : (int)PyLong_AsLong(red);
    if (PyErr_Occurred())
        return -1;
    PyObject *kind = PyTuple_Pack(2, opus, red);
    if (kind == NULL)
        return -1;
    Py_XSETREF(self->kind, kind);
#define KEEP(field, value) Py_INCREF(value); Py_XSETREF(self->field, value)
    KEEP(sender, sender);
    KEEP(dtls, dtls);
    KEEP(connected, connected);
    KEEP(rest, rest);
    KEEP(history, history);
    KEEP(session, session);
    KEEP(nominated, nominated);
#undef KEEP
    Py_CLEAR(self->pair);
    Py_CLEAR(self->protocol);
    Py_CLEAR(self->sock);
    self->first = first;
    self->seq_origin = seq_origin;
    self->ts_origin = ts_origin;
    self->protect = (protect_fn)(uintptr_t)protect;
    self->srtp = (void *)(uintptr_t)srtp;
    self->packets = self->octets = 0;
    return 0;
}

/* target(pair, protocol, sock, host, port) -> bool: send to `pair` from now on; with a UDP
 * socket whose family `host` parses in, directly (True), otherwise through `relay` (a TURN
 * relay frames the data itself). `pair` None: nothing is sent (no ICE pair yet). */
static PyObject *Stream_target(Stream *self, PyObject *args)
{
    PyObject *pair, *protocol, *sock;
    const char *host;
    int port;
    if (!PyArg_ParseTuple(args, "OOOsi", &pair, &protocol, &sock, &host, &port))
        return NULL;
    Py_CLEAR(self->pair);
    Py_CLEAR(self->protocol);
    Py_CLEAR(self->sock);
    if (pair == Py_None)
        Py_RETURN_FALSE;
    self->pair = Py_NewRef(pair);
    self->protocol = Py_NewRef(protocol);
    if (sock == Py_None)
        Py_RETURN_FALSE;
    PyObject *family_object = PyObject_GetAttrString(sock, "family");
    if (family_object == NULL)
        return NULL;
    long family = PyLong_AsLong(family_object);
    Py_DECREF(family_object);
    memset(&self->address, 0, sizeof(self->address));
    if (family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&self->address;
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
            Py_RETURN_FALSE;
        self->address_size = sizeof(*in);
    } else if (family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&self->address;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
            Py_RETURN_FALSE;  /* a scoped (link-local) address: Python's sendto resolves it */
        self->address_size = sizeof(*in6);
    } else {
        Py_RETURN_FALSE;
    }
    self->sock = Py_NewRef(sock);
    Py_RETURN_TRUE;
}

/* `attribute` of `object` += `amount` (aiortc's counters, which its stats and reports read). */
static int add_to(PyObject *object, PyObject *attribute, long long amount)
{
    PyObject *value = PyObject_GetAttr(object, attribute);
    if (value == NULL)
        return -1;
    PyObject *addend = PyLong_FromLongLong(amount);
    PyObject *sum = addend ? PyNumber_Add(value, addend) : NULL;
    Py_DECREF(value);
    Py_XDECREF(addend);
    if (sum == NULL)
        return -1;
    int result = PyObject_SetAttr(object, attribute, sum);
    Py_DECREF(sum);
    return result;
}

static int set_to(PyObject *object, PyObject *attribute, unsigned long long value)
{
    PyObject *number = PyLong_FromUnsignedLongLong(value);
    if (number == NULL)
        return -1;
    int result = PyObject_SetAttr(object, attribute, number);
    Py_DECREF(number);
    return result;
}

static int is_true(PyObject *object, PyObject *attribute, PyObject *expected)
{
    /* `object.attribute is expected` (expected NULL: truthy); −1 on error. */
    PyObject *value = PyObject_GetAttr(object, attribute);
    if (value == NULL)
        return -1;
    int result = expected ? value == expected : PyObject_IsTrue(value);
    Py_DECREF(value);
    return result;
}

/* The wall clock as a 64-bit NTP timestamp (32.32 fixed point), as aiortc's
 * `clock.current_ntp_time` gives it: the sender reports' clock pair. */
static uint64_t ntp_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t seconds = (uint64_t)now.tv_sec + NTP_UNIX_OFFSET;
    return seconds << 32 | (uint64_t)(((double)now.tv_nsec / 1e9) * 4294967296.0);
}

static unsigned char buffer[1500];  /* protected in place: only the event loop's thread sends */

/* Send one packet to this stream's listener with the outgoing numbers `seq` and `ts`, as
 * aiortc's sender would (its counters and clock pair kept): nothing while the sender is
 * disabled or DTLS not connected; dropped (counted in `dropped`) at a full socket send
 * buffer — a late voice packet is worth nothing — and another socket error handed to the
 * protocol's `error_received`, as asyncio's transport does. −1 with an exception set when
 * this listener's stream failed. */
static int send_one(Stream *self, const char *payload, Py_ssize_t size, int payload_type,
                    int marker, long seq, long ts, long *dropped)
{
    int enabled = is_true(self->sender, str_enabled, NULL);
    if (enabled <= 0)
        return enabled;
    int connected = is_true(self->dtls, str_state, self->connected);
    if (connected <= 0)
        return connected;
    PyObject *pair = PyDict_GetItemWithError(self->nominated, one);
    if (pair != self->pair) {
        if (pair == NULL && PyErr_Occurred())
            return -1;
        PyObject *done = PyObject_CallMethodOneArg((PyObject *)self, str_retarget,
                                                   pair ? pair : Py_None);
        if (done == NULL)
            return -1;
        Py_DECREF(done);
    }
    if (self->pair == NULL)
        return 0;  /* no ICE pair: dropped, as aiortc's transport drops it */

    uint16_t out_seq = (uint16_t)(self->seq_origin + seq);
    uint32_t out_ts = (uint32_t)(self->ts_origin + ts);
    Py_ssize_t fixed = PyBytes_GET_SIZE(self->rest);
    Py_ssize_t length = 8 + fixed + size;
    if (length > MAX_PLAIN) {
        PyErr_SetString(PyExc_ValueError, "packet is too long");
        return -1;
    }
    PyObject *packet = PyBytes_FromStringAndSize(NULL, length);
    if (packet == NULL)
        return -1;
    unsigned char *plain = (unsigned char *)PyBytes_AS_STRING(packet);
    plain[0] = (unsigned char)self->first;
    plain[1] = (unsigned char)(marker << 7 | payload_type);
    plain[2] = out_seq >> 8;
    plain[3] = out_seq & 0xFF;
    plain[4] = out_ts >> 24;
    plain[5] = (out_ts >> 16) & 0xFF;
    plain[6] = (out_ts >> 8) & 0xFF;
    plain[7] = out_ts & 0xFF;
    memcpy(plain + 8, PyBytes_AS_STRING(self->rest), fixed);
    memcpy(plain + 8 + fixed, payload, size);
    memcpy(buffer, plain, length);
    /* Kept for the listener's NACKs (the list owns the packet from here). */
    PyList_SetItem(self->history, out_seq % PyList_GET_SIZE(self->history), packet);

    int protected_length = (int)length;
    int status = self->protect(self->srtp, buffer, &protected_length);
    if (status) {
        PyErr_Format(srtp_error, "srtp_protect failed: %d", status);
        return -1;
    }
    if (self->sock == NULL) {
        PyObject *data = PyBytes_FromStringAndSize((char *)buffer, protected_length);
        PyObject *done = data ? PyObject_CallMethodOneArg((PyObject *)self, str_relay, data) : NULL;
        Py_XDECREF(data);
        if (done == NULL)
            return -1;
        Py_DECREF(done);
    } else {
        int fd = PyObject_AsFileDescriptor(self->sock);
        if (fd < 0) {
            PyErr_Clear();
            return 0;  /* the socket closed under a stream about to stop */
        }
        if (sendto(fd, buffer, protected_length, 0, (struct sockaddr *)&self->address,
                   self->address_size) < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                *dropped += 1;
            } else {
                PyErr_SetFromErrno(PyExc_OSError);
                PyObject *type, *value, *traceback;
                PyErr_Fetch(&type, &value, &traceback);
                PyErr_NormalizeException(&type, &value, &traceback);
                PyObject *done = PyObject_CallMethodOneArg(self->protocol, str_error_received,
                                                           value);
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(traceback);
                if (done == NULL)
                    return -1;
                Py_DECREF(done);
            }
        }
        /* The DTLS transport's counters (its stats), as `transmit` counts a relayed one. */
        if (add_to(self->dtls, str_tx_bytes, protected_length) < 0 ||
            add_to(self->dtls, str_tx_packets, 1) < 0)
            return -1;
    }
    /* What aiortc's RTCP loop reads for its sender reports; their clock pair (a wall-clock
     * time and the RTP timestamp sent then) must belong together, it need not be the newest. */
    self->packets += 1;
    self->octets += size;
    if (set_to(self->sender, str_packets, self->packets) < 0 ||
        set_to(self->sender, str_octets, self->octets) < 0)
        return -1;
    if (out_seq % CLOCK_PAIR_EVERY == 0) {
        if (set_to(self->sender, str_ntp, ntp_now()) < 0 ||
            set_to(self->sender, str_rtp, out_ts) < 0)
            return -1;
    }
    return 0;
}

static int Stream_traverse(Stream *self, visitproc visit, void *arg)
{
    Py_VISIT(self->sender);
    Py_VISIT(self->dtls);
    Py_VISIT(self->connected);
    Py_VISIT(self->rest);
    Py_VISIT(self->history);
    Py_VISIT(self->kind);
    Py_VISIT(self->session);
    Py_VISIT(self->nominated);
    Py_VISIT(self->pair);
    Py_VISIT(self->protocol);
    Py_VISIT(self->sock);
    return Renumbering_traverse(&self->numbers, visit, arg);
}

static int Stream_clear(Stream *self)
{
    Py_CLEAR(self->sender);
    Py_CLEAR(self->dtls);
    Py_CLEAR(self->connected);
    Py_CLEAR(self->rest);
    Py_CLEAR(self->history);
    Py_CLEAR(self->kind);
    Py_CLEAR(self->session);
    Py_CLEAR(self->nominated);
    Py_CLEAR(self->pair);
    Py_CLEAR(self->protocol);
    Py_CLEAR(self->sock);
    return Renumbering_clear(&self->numbers);
}

static PyObject *Stream_get_kind(Stream *self, void *closure)
{
    return Py_NewRef(self->kind ? self->kind : Py_None);
}

static PyMethodDef Stream_methods[] = {
    {"target", (PyCFunction)Stream_target, METH_VARARGS,
     "target(pair, protocol, sock, host, port) -> bool: send to this ICE pair from now on;\n"
     "True when directly on `sock` (UDP), False when through `relay` (or nothing: no pair)."},
    {NULL}};

static PyGetSetDef Stream_getset[] = {
    {"kind", (getter)Stream_get_kind, NULL,
     "(opus, red): the listener's payload types, the key of `forward`'s RED variants", NULL},
    {NULL}};

static PyTypeObject StreamType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rtc._forward.Stream",
    .tp_doc = "One listener's outgoing stream of relayed packets: its numbering, header, SRTP\n"
              "session and socket. A subclass gives `fail(error)`, `relay(data)` and\n"
              "`retarget(pair)` (rtc/passthrough.py `_Sending`).",
    .tp_basicsize = sizeof(Stream),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Stream_init,
    .tp_traverse = (traverseproc)Stream_traverse,
    .tp_clear = (inquiry)Stream_clear,
    .tp_dealloc = (destructor)Renumbering_dealloc,
    .tp_methods = Stream_methods,
    .tp_getset = Stream_getset,
};

/* ---- forward ------------------------------------------------------------------------- */

/* Hand the failure of one listener's stream (the exception set) to its `fail`, which logs
 * it and stops his gate: one listener's broken stream never stops the publisher's. */
static void failed(Stream *stream)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback != NULL)
        PyException_SetTraceback(value, traceback);
    PyObject *done = PyObject_CallMethodOneArg((PyObject *)stream, str_fail, value);
    if (done == NULL)
        PyErr_WriteUnraisable((PyObject *)stream);
    Py_XDECREF(done);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
}

static PyObject *forward(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "forward takes 8 arguments");
        return NULL;
    }
    PyObject *streams = args[0], *data = args[1], *variants = args[5], *source = args[6];
    long seq = PyLong_AsLong(args[2]) & 0xFFFF;
    long ts = (long)(PyLong_AsUnsignedLongLongMask(args[3]) & 0xFFFFFFFFULL);
    int marker = PyObject_IsTrue(args[4]);
    double now = PyFloat_AsDouble(args[7]);
    if (PyErr_Occurred())
        return NULL;
    if (!PyList_Check(streams) || !PyBytes_Check(data) ||
        (variants != Py_None && !PyDict_Check(variants))) {
        PyErr_SetString(PyExc_TypeError, "forward(list, bytes, int, int, int, dict | None, ...)");
        return NULL;
    }
    long dropped = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(streams); i++) {
        PyObject *item = PyList_GET_ITEM(streams, i);
        if (!PyObject_TypeCheck(item, &StreamType) || ((Stream *)item)->sender == NULL) {
            PyErr_SetString(PyExc_TypeError, "forward's streams are initialised Streams");
            return NULL;
        }
        Stream *stream = (Stream *)item;
        long out_seq, out_ts;
        if (!renumber(&stream->numbers, seq, ts, source, now, &out_seq, &out_ts))
            continue;  /* a duplicate */
        if (stream->opus < 0)
            continue;  /* no Opus negotiated with this listener */
        const char *payload = PyBytes_AS_STRING(data);
        Py_ssize_t size = PyBytes_GET_SIZE(data);
        int payload_type = stream->opus;
        if (variants != Py_None) {  /* a RED packet: what it is for this kind of listener */
            PyObject *variant = PyDict_GetItemWithError(variants, stream->kind);
            if (variant == NULL && PyErr_Occurred())
                return NULL;
            if (variant == NULL || variant == Py_None)
                continue;  /* malformed RED: nothing to forward */
            PyObject *bytes;
            if (!PyArg_ParseTuple(variant, "iS", &payload_type, &bytes))
                return NULL;
            payload = PyBytes_AS_STRING(bytes);
            size = PyBytes_GET_SIZE(bytes);
        }
        Py_INCREF(stream);
        if (send_one(stream, payload, size, payload_type, marker, out_seq, out_ts, &dropped) < 0)
            failed(stream);
        Py_DECREF(stream);
    }
    return PyLong_FromLong(dropped);
}

/* A received SRTP packet decrypted by libsrtp's `srtp_unprotect` (its address in pylibsrtp's
 * binding) with a session's context: what pylibsrtp's `Session.unprotect` does, in one C call
 * instead of two Python calls, a type check, a new C `int` and a copy into its buffer
 * (docs/performance.md «The receive path's decryption in C»). */
static PyObject *unprotect(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "unprotect takes 3 arguments");
        return NULL;
    }
    protect_fn function = (protect_fn)PyLong_AsVoidPtr(args[0]);
    void *context = PyLong_AsVoidPtr(args[1]);
    if (PyErr_Occurred())
        return NULL;
    if (function == NULL || context == NULL || !PyBytes_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "unprotect(function address, srtp_t address, bytes)");
        return NULL;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(args[2]);
    if (size > MAX_PROTECTED) {
        PyErr_SetString(PyExc_ValueError, "packet is too long");
        return NULL;
    }
    _Alignas(16) unsigned char buffer[MAX_PROTECTED];
    memcpy(buffer, PyBytes_AS_STRING(args[2]), (size_t)size);
    int length = (int)size;
    int status = function(context, buffer, &length);
    if (status) {
        PyErr_Format(srtp_error, "srtp_unprotect failed: %d", status);
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)buffer, length);
}

static PyMethodDef methods[] = {
    {"forward", (PyCFunction)(void (*)(void))forward, METH_FASTCALL,
     "forward(streams, payload, seq, ts, marker, variants, source, now) -> dropped\n\n"
     "Send one received packet of `source` (its RTP seq, timestamp, marker and Opus payload) to\n"
     "each stream, numbered as that stream goes on; `variants`, for a RED packet, maps a\n"
     "stream's `kind` to (payload type, payload) or None (None: plain Opus). Returns how many\n"
     "datagrams a full socket send buffer dropped. A stream that fails is handed to its\n"
     "`fail`; nothing raises for one listener's sake."},
    {"unprotect", (PyCFunction)(void (*)(void))unprotect, METH_FASTCALL,
     "unprotect(srtp_unprotect, srtp_t, packet) -> bytes\n\n"
     "One SRTP packet decrypted with the session at address `srtp_t`, by libsrtp's\n"
     "`srtp_unprotect` at address `srtp_unprotect`; pylibsrtp.Error for a replay or a forgery,\n"
     "ValueError for a packet longer than pylibsrtp's buffer."},
    {NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "rtc._forward",
    "The per-listener work of forwarding a received packet, compiled (rtc/_forward.c).", -1,
    methods};

PyMODINIT_FUNC PyInit__forward(void)
{
    StreamType.tp_base = &RenumberingType;
    if (PyType_Ready(&RenumberingType) < 0 || PyType_Ready(&StreamType) < 0)
        return NULL;
    PyObject *pylibsrtp = PyImport_ImportModule("pylibsrtp");
    if (pylibsrtp == NULL)
        return NULL;
    srtp_error = PyObject_GetAttrString(pylibsrtp, "Error");
    Py_DECREF(pylibsrtp);
    if (srtp_error == NULL)
        return NULL;
#define NAME(variable, text) if ((variable = PyUnicode_InternFromString(text)) == NULL) return NULL
    NAME(str_enabled, "_enabled");
    NAME(str_state, "_state");
    NAME(str_packets, "_RTCRtpSender__packet_count");
    NAME(str_octets, "_RTCRtpSender__octet_count");
    NAME(str_ntp, "_RTCRtpSender__ntp_timestamp");
    NAME(str_rtp, "_RTCRtpSender__rtp_timestamp");
    NAME(str_tx_bytes, "_RTCDtlsTransport__tx_bytes");
    NAME(str_tx_packets, "_RTCDtlsTransport__tx_packets");
    NAME(str_fail, "fail");
    NAME(str_relay, "relay");
    NAME(str_retarget, "retarget");
    NAME(str_error_received, "error_received");
#undef NAME
    if ((one = PyLong_FromLong(1)) == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Renumbering", (PyObject *)&RenumberingType) < 0 ||
        PyModule_AddObjectRef(m, "Stream", (PyObject *)&StreamType) < 0 ||
        PyModule_AddIntConstant(m, "MAX_GAP", MAX_GAP) < 0 ||
        PyModule_AddIntConstant(m, "CLOCK_PAIR_EVERY", CLOCK_PAIR_EVERY) < 0 ||
        PyModule_AddIntConstant(m, "MAX_PLAIN", MAX_PLAIN) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
