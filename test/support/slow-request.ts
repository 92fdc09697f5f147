/** A request whose body arrives late, for the tests of what a stopping server does with a request in flight. */
import net from 'node:net';

/**
 * Sends a POST to the update endpoint whose 2-byte body arrives in two parts: `between` is called
 * after the first part has had time to reach the server (300 ms), and the second part is sent
 * 300 ms later. Answers the raw HTTP answer once the server closes the connection.
 */
export function slowRequest(port: number, between: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(
      'POST /api/2/attributes/update/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[',
    );
    setTimeout(() => {
      between();
      setTimeout(() => socket.write(']'), 300);
    }, 300);
  });
}
