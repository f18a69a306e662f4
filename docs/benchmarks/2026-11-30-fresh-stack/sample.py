import json,time,sys,urllib.request,os
tok=[l.split('=',1)[1].strip().strip('"') for l in open('/work/main/.run/tokens.env') if l.startswith('COUPON_OPERATOR_TOKEN')][0]
out=open(sys.argv[1],'w'); cid=None; t0=time.time()
def get(path):
    r=urllib.request.Request('http://127.0.0.1:8080'+path,headers={'Authorization':'Bearer '+tok})
    return json.load(urllib.request.urlopen(r,timeout=2))
start=int(sys.argv[2]) if len(sys.argv)>2 else 0
while time.time()-t0<90:
    try:
        if cid is None:
            lst=get('/admin/v1/coupons')
            items=lst if isinstance(lst,list) else lst.get('items',lst.get('coupons',[]))
            ids=[c['id'] for c in items if c['id']>start]
            if ids: cid=max(ids)
            else: time.sleep(0.1); continue
        v=get('/admin/v1/coupons/%d'%cid); p=v['pace']; s=v['stats']
        out.write('%d %d %d %d %d %.1f %.1f %.1f %d %s\n'%(int(time.time()*1000),v['waiting'],s['admitted'],s['published'],s['issued'],p['effectiveRatePerSecond'],p['measuredRatePerSecond'],p['assumedRatePerSecond'],p['transitMillis'],p['rateCutReason'] and 'CUT' or '-'))
        out.flush()
        if s['issued']>=s['admitted']>0 and v['waiting']==0: break
    except Exception as e:
        out.write('# %s\n'%e)
    time.sleep(0.25)
