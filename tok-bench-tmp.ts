import { countTextTokens } from "@/lib/billing/tokens";
function random(seed: number) { let s = seed; return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32; }
const syl = ["ka","lo","mi","ter","son","ver","al","pre","dic","tion","ment","ous","gra","phy","bel","stra","quin","zor"];
function prose(n: number, seed: number) { const r = random(seed); let t = ""; while (t.length < n) { t += Array.from({length: 1 + Math.floor(r()*4)}, () => syl[Math.floor(r()*syl.length)]).join("") + (r() < 0.1 ? ".\n" : " "); } return t.slice(0, n); }
function code(n: number, seed: number) { const r = random(seed); let t = ""; while (t.length < n) t += `  const value${Math.floor(r()*1e6)} = await fetchThing("${prose(12, seed + t.length)}", { retries: ${Math.floor(r()*9)} });\n`; return t.slice(0, n); }
function han(n: number, seed: number) { const r = random(seed); return Array.from({length: n}, () => String.fromCharCode(0x4e00 + Math.floor(r() * 20000))).join(""); }
const common = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质".split("");
function hanCommon(n: number, seed: number) { const r = random(seed); return Array.from({length: n}, () => common[Math.floor(r()*common.length)]).join("") ; }
function b64(n: number, seed: number) { const r = random(seed); return Buffer.from(Array.from({length: Math.ceil(n*0.75)}, () => Math.floor(r()*256))).toString("base64").slice(0, n); }
countTextTokens(prose(50000, 999)); countTextTokens(han(5000, 998));
for (const [name, gen] of [["English prose", prose], ["TypeScript-ish code", code], ["common Chinese", hanCommon], ["base64", b64], ["rare CJK (adversarial)", han]] as const) {
  for (const size of [16_384, 100_000, 1_000_000]) {
    const times: number[] = []; let tokens = 0;
    for (let run = 0; run < 5; run++) { const text = gen(size, run * 7 + size); const t0 = performance.now(); tokens = countTextTokens(text); times.push(performance.now() - t0); }
    times.sort((a, b) => a - b);
    console.log(`${name.padEnd(24)} ${String(size).padStart(8)} chars  ${String(tokens).padStart(7)} tokens  median ${times[2]!.toFixed(1)} ms  max ${times[4]!.toFixed(1)} ms`);
  }
}
