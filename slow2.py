import socket, time, sys, urllib.request
socks = []
for i in range(400):
    try:
        s = socket.create_connection(("127.0.0.1", 18833), timeout=3); socks.append(s)
    except OSError as e:
        print("connect", i, e); break
time.sleep(3)
print("opened", len(socks))
for k in range(2):
    t=time.time()
    try:
        r = urllib.request.urlopen("http://127.0.0.1:18833/api/live?brief=1", timeout=10); r.read()
        print("spectator GET:", r.status, round(time.time()-t,3))
    except Exception as e:
        print("spectator GET failed after", round(time.time()-t,1), "s:", e)
for s in socks: s.close()
time.sleep(3)
t=time.time()
try:
    r = urllib.request.urlopen("http://127.0.0.1:18833/api/live?brief=1", timeout=10); r.read(); print("after close:", r.status, round(time.time()-t,3))
except Exception as e: print("after close failed", e)
