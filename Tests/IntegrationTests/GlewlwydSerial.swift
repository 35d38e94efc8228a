import Testing

/// Every suite that talks to the plain glewlwyd instance (`GLEWLWYD_ISSUER`), run one test at a time.
///
/// glewlwyd 2.7.5 on SQLite races concurrent writes: it reads a new row's id back as the connection's last
/// insert id, which its threads share, so a token or client written while another was being written failed
/// now and then with HTTP 500 (`FOREIGN KEY constraint failed` in its debug log) — a registration test's client
/// deletion beside a token request was enough. Serialized, these suites take as long as in parallel (the
/// CIBA and device-grant waits dominate). The TLS instance has a database of its own and is not included.
@Suite("glewlwyd, one test at a time", .serialized)
enum GlewlwydSerial {}
