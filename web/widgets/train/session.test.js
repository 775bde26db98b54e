// <attn-train>'s training session (session.js) in Node, on the real trainer (createTrainer on this
// thread: Node has no Web Worker) and the real pretrained snapshots: what it loads, which source it
// shows, the status line, a live run's steps / target / speed / snapshots / reset, the names samples.
// The host is a plain object with what the element gives the session (task, size, source, updates).
import { describe, expect, test, vi } from 'vitest';
import { TrainSession } from './session.js';
import { LiveRun, predictionRows, rateOf, reachedStage, roleHead, scoredFrom } from './logic.js';
import { loadPretrained } from '../../train/index.js';

function makeHost(task = 'induction', size = 'attn2') {
  return {
    task, size, source: null, isConnected: true, updates: 0, controllers: [],
    addController(c) { this.controllers.push(c); },
    requestUpdate() { this.updates++; },
  };
}

/** Resolves when the run's trainer says it stopped (a 'state' event with running false). */
const stopped = (run) => new Promise((ok) => {
  const on = (e) => { if (!e.detail.running) { run.trainer.removeEventListener('state', on); ok(); } };
  run.trainer.addEventListener('state', on);
});

describe('TrainSession', () => {
  test('pretrained snapshots: loading, then ready and shown; the status line says which steps they cover', async () => {
    const host = makeHost();
    const s = new TrainSession(host);
    expect(host.controllers).toEqual([s]);
    expect(s.source).toBe('pretrained');  // the induction task has them (not yet known to be missing)
    const loading = s.loadPretrained();
    expect(s.pre.status).toBe('loading');
    expect(s.statusText()).toBe('loading the pretrained snapshots…');
    await loading;
    const files = await loadPretrained('induction');
    expect(s.pre.status).toBe('ready');
    expect(s.replayReady).toBe(true);
    expect(s.snapshots.map((x) => x.step)).toEqual(files.snapshots.map((x) => x.step));
    expect(s.history).toBe(s.snapshots);
    const steps = files.snapshots.map((x) => x.step);
    expect(s.statusText()).toBe(`${steps.length} pretrained snapshots (steps ${steps[0]}–${steps[steps.length - 1]})`);
    // Each snapshot carries the numbers measured here (held-out loss, ratio, every head's scores).
    for (const snap of s.snapshots) {
      expect(Number.isFinite(snap.evalLoss)).toBe(true);
      expect(snap.heads.length).toBe(s.pre.config.layers);
    }
    await s.loadPretrained();  // once per task
    expect(s.pre.snapshots).toBe(s.snapshots);
    expect(host.updates).toBeGreaterThanOrEqual(2);
    // Another task has none: the live source.
    host.task = 'reverse';
    expect(s.source).toBe('live');
  });

  test('a live run: made on request, stepped, trained to its target (speed, snapshots), reset, ended', async () => {
    const host = makeHost('induction', 'attn1');
    host.source = 'live';
    let stops = 0;
    const s = new TrainSession(host, { onStopped: () => stops++ });
    expect(s.statusText()).toBe('Start (or Step) trains a model from scratch here');
    s.sync();  // no run was asked for: a page load makes none
    expect(s.making).toBe(null);

    const making = s.ensureRun();
    expect(s.statusText()).toBe('starting the trainer…');
    const run = await making;
    expect(run).toBeInstanceOf(LiveRun);
    expect(s.run).toBe(run);
    expect(s.runFor).toBe('induction|attn1');
    expect(await s.ensureRun()).toBe(run);  // one run per task and size

    await s.step(50);
    expect(run.step).toBe(50);
    expect(s.statusText()).toBe('paused: step 50 of 3000');
    expect(s.history.map((h) => h.step)).toEqual([0, 25, 50]);  // evaluated every 25 steps
    expect(s.snapshots.map((x) => x.step)).toEqual([0]);

    run.target = 120;
    const done = stopped(run);
    await s.train();
    expect(s.running).toBe(true);
    await done;
    expect(run.step).toBe(120);
    expect(s.running).toBe(false);  // stopped by itself at its target: no longer asked to train
    expect(stops).toBe(1);           // …and the host is told (its link then says running: false)
    expect(s.redrawPending).toBe(false);
    expect(s.snapshots.map((x) => x.step)).toEqual([0, 100]);
    expect(s.history.at(-1).step).toBe(100);
    expect(run.speed.stepsPerSec).toBeGreaterThan(0);
    expect(run.speed.tokensPerSec).toBeCloseTo(run.speed.stepsPerSec * 4 * 23, 6);  // batch 4 × 23 positions
    expect(s.statusText()).toBe('paused: step 120 of 120');

    // Trained to its target, Start trains one preset further.
    await s.train();
    expect(run.target).toBe(120 + 3000);
    s.pause();
    expect(s.running).toBe(false);

    expect(stops).toBe(1);  // a pause asked for is no self-stop
    await s.reset();
    expect(run.target).toBe(3000);  // Reset: the preset's target again, not the one Start extended
    expect(run.step).toBe(0);
    expect(s.snapshots.map((x) => x.step)).toEqual([0]);
    expect(s.error).toBe('');

    const trainer = run.trainer;
    s.hostDisconnected();  // the element left the page: its run ends
    expect(s.run).toBe(null);
    expect(trainer.terminated).toBe(true);
  });

  test('the pretrained snapshots are never shown under another model\'s name', async () => {
    const host = makeHost('induction', 'mlp2');
    host.source = 'pretrained';
    const s = new TrainSession(host);
    await s.loadPretrained();
    expect(s.pre.status).toBe('ready');
    expect(s.pretrainedFits).toBe(false);
    expect(s.source).toBe('live');           // the MLP model picked: its own live run, not the attention-only snapshots
    expect(s.snapshots).toEqual([]);
    host.size = 'attn1';
    expect(s.source).toBe('live');
    host.size = 'attn2';                      // the snapshots' model (index.json's config)
    expect(s.pretrainedFits).toBe(true);
    expect(s.source).toBe('pretrained');
  });

  test('Step never passes the target: cut to it, then the target moves one preset on and the notice says so', async () => {
    const host = makeHost('induction', 'attn1');
    host.source = 'live';
    const s = new TrainSession(host);
    const run = await s.ensureRun();
    run.target = 25;
    await s.step(10);
    await s.step(10);
    await s.step(10);  // 20 + 10 would pass 25: cut to 5
    expect(run.step).toBe(25);
    expect(s.statusText()).toBe('paused: step 25 of 25');
    expect(s.notice).toBe('');
    await s.step(10);  // at the target: it moves on, said
    expect(run.step).toBe(35);
    expect(run.target).toBe(25 + 3000);
    expect(s.statusText()).toBe('paused: step 35 of 3025');
    expect(s.notice).toBe('Trained to its target: Step goes on towards 3,025 steps.');
    await s.reset();
    expect(run.target).toBe(3000);
    expect(s.notice).toBe('');
    // Start trains at the host's speed; a new speed reaches the run while it trains.
    host.speed = '20';
    await s.train();
    expect(run.rate).toBe(20);
    host.speed = 'max';
    s.setSpeed();
    expect(run.rate).toBe(Infinity);
    s.pause();
    // A new task or model discards the run that trained, and says so.
    await s.step(10);
    s.discardRun('the task was changed to names');
    expect(s.run).toBe(null);
    expect(s.notice).toBe('The induction run of the 1-layer attention-only model (step 10) was discarded: the task was changed to names. A run belongs to one task and one model.');
  });

  test('stage pauses: a live run pauses itself at each stage boundary it crosses, says why, and Resume goes on to the next', async () => {
    // The 2-layer preset (batch 4, lr 3e-3: its phase change in ~1,300 steps), as fast as it goes.
    const host = makeHost('induction', 'attn2');
    host.source = 'live';
    host.speed = 'max';
    host.stagePauses = true;
    let stops = 0;
    const s = new TrainSession(host, { onStopped: () => stops++ });
    const run = await s.ensureRun();
    try {
      const stageOf = (entry) => reachedStage(entry, s.history[0].evalLoss).stage;
      const seen = [];
      // Trains until the session is no longer asked to (a boundary pause or the target), and the trainer has stopped.
      // The trainer's progress messages since the last resume: each carries the step it was posted at and
      // the evaluations made since the one before.
      let posts = [];
      run.trainer.addEventListener('progress', (e) => posts.push({ step: e.detail.step, evals: (e.detail.lossHistory ?? []).map((p) => p.step) }));
      const trainToStop = async () => {
        posts = [];
        await s.train();
        await vi.waitFor(() => expect([s.running, run.running]).toEqual([false, false]), { timeout: 60000, interval: 20 });
      };
      for (let k = 0; k < 3 && run.step < run.target; k++) {
        await trainToStop();
        if (!s.boundary) break;
        const b = s.boundary, h = s.history;
        seen.push(b.stage);
        // Paused by itself (the shared state says so too), at the first evaluation past the boundary:
        // that one reached the stage, the one before it had not.
        expect(s.running).toBe(false);
        expect(stops).toBe(k + 1);
        const i = h.findIndex((x) => x.step === b.step);
        expect(i).toBeGreaterThan(0);
        expect(stageOf(h[i])).toBe(b.stage);
        expect(stageOf(h[i - 1])).toBeLessThan(b.stage);
        // The pause takes effect at the message that carried that evaluation: the trainer runs no slice
        // after it. (A message posted from inside a slice, with a snapshot, is followed by the rest of that
        // slice and one last message at the stop.) An evaluation that came before this resume, in the same
        // message as the last pause's (two boundaries crossed close together), pauses at the resumed run's
        // first message. Counted in messages, not steps: how many steps a slice holds depends on the
        // machine's speed.
        const carried = posts.findIndex((p) => p.evals.includes(b.step));
        if (carried < 0) expect(b.step).toBeLessThan(posts[0].evals[0] ?? posts[0].step);
        expect(posts.length - 1 - Math.max(0, carried)).toBeLessThanOrEqual(1);
        expect(run.step).toBe(posts.at(-1).step);
        expect(s.statusText()).toContain(`Paused at stage ${b.stage}, ${['', 'loss falls', 'previous-token head', 'induction head'][b.stage]}`);
        expect(s.statusText()).toContain('Resume goes on to the next stage.');
        expect(s.boundaryText({ short: true })).toMatch(/^paused at stage \d, .+: .+ · Resume goes on$/);
      }
      // The stages come in order, each once, up to the induction head (two may be crossed by one evaluation).
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.at(-1)).toBe(3);
      expect(s.boundary.why).toMatch(/^L1H\d’s induction score reached 0\.\d\d \(≥ 0\.5\)$/);
      // Past the last boundary it trains on to its target; without stage pauses a run never stops early.
      await trainToStop();
      expect(s.boundary).toBe(null);
      expect(run.step).toBe(run.target);
      await s.reset();
      host.stagePauses = false;
      run.target = 1600;
      await trainToStop();
      expect(run.step).toBe(1600);
      expect(s.boundary).toBe(null);
    } finally {
      s.dropRun();
    }
  }, 180000);

  test('a copy asked to show a live run it never started (the presenter\'s preview) shows the run another widget of the page trains, and never drives it', async () => {
    const owner = makeHost('induction', 'attn1'), mirror = makeHost('induction', 'attn1');
    owner.source = 'live';
    const a = new TrainSession(owner);
    mirror.source = 'live';  // what the shared state says: the slide shows the live run
    const b = new TrainSession(mirror);
    b.sync();
    expect(b.run).toBe(null);  // nothing to show yet (before: an empty plot at step 0, forever)
    const updates = mirror.updates;
    const run = await a.ensureRun();
    expect(mirror.updates).toBeGreaterThan(updates);  // told to look again
    b.sync();
    expect(b.run).toBe(run);
    expect(b.borrowed).toBe(true);
    expect(b.making).toBe(null);  // no worker of its own
    await a.step(30);
    expect(b.history.map((h) => h.step)).toEqual([0, 25]);
    expect(b.snapshots.map((x) => x.step)).toEqual([0]);
    // The owner's changes redraw the copy; the copy's pause, speed and reset leave the run alone.
    const done = stopped(run);
    run.target = 80;
    await a.train();
    b.pause();
    mirror.speed = '10';
    b.setSpeed();
    expect(run.rate).toBe(rateOf(owner.speed));
    await b.reset();
    await done;
    expect(run.step).toBe(80);
    // Another task or model: nothing to borrow.
    const other = makeHost('reverse', 'attn1');
    other.source = 'live';
    const c = new TrainSession(other);
    c.sync();
    expect(c.run).toBe(null);
    // The owner drops its run: the copy gives it back.
    a.dropRun();
    expect(b.run).toBe(null);
    expect(b.borrowed).toBe(false);
    expect(run.trainer.terminated).toBe(true);
  });

  test('names: a sample from every snapshot\'s weights, kept in step order; the one for a step is the newest at or before it', async () => {
    const host = makeHost('names', 'attn1');
    const s = new TrainSession(host);
    expect(s.source).toBe('live');
    s.wantRun = true;
    s.sync();  // asked for before: made now (the names list loads with it)
    const run = await s.making;
    expect(run.trainer.task.name).toBe('names');
    await s.step(100);
    await s.step(100);
    await s.step(100);
    await s.step(100);  // snapshots at 0, 100, …, 400 — more than the six the widget used to keep…
    await s.step(100);
    await s.step(100);
    await s.step(100);
    // A snapshot event while a sample is being drawn lists every snapshot again: each is drawn once.
    s.sampleSnapshots(run.snapshots);
    s.sampleSnapshots(run.snapshots);
    await vi.waitFor(() => expect(s.samples.map((x) => x.step)).toEqual([0, 100, 200, 300, 400, 500, 600, 700]), { timeout: 60000 });
    await new Promise((ok) => setTimeout(ok, 200));
    expect(s.samples).toHaveLength(8);
    for (const sample of s.samples) {
      expect(sample.error).toBeUndefined();
      for (const name of sample.names) expect(name).toMatch(/^[a-z]+$/);
    }
    // …each drawn from its snapshot's weights: the same draw again gives the same names.
    const again = await run.trainer.sample({ steps: 48, temperature: 0.8, seed: 300, snapshot: 3 });
    expect(s.samples[3].names.join('.')).toBe(again.split('.').filter(Boolean).slice(0, s.samples[3].names.length).join('.'));
    expect(s.sampleAt(250).step).toBe(200);
    expect(s.sampleAt(700).step).toBe(700);
    s.dropRun();
    expect(s.samples).toEqual([]);
    expect(run.trainer.terminated).toBe(true);
  });

  test('a run that cannot start says why, and is not retried on its own', async () => {
    const host = makeHost('induction', 'attn1');
    host.source = 'live';
    const s = new TrainSession(host);
    s.pre.trainerOptions = { model: { layers: 0 } };  // what a broken index.json would give the "like" run
    host.size = 'attn2';                                // the preset that follows the pretrained run
    expect(await s.ensureRun()).toBe(null);
    expect(s.error).toBe('The trainer could not start: createTrainer: model.layers is 0, expected a positive integer');
    expect(s.statusText()).toBe('Start (or Step) trains a model from scratch here');
    s.sync();
    expect(s.making).toBe(null);
  });

  test('reverse, trained: its anti-diagonal head scores past the threshold, and every reversed digit is right', async () => {
    // The preset's 3,000 steps (seed 0): layer 1's head 1 reads each digit one key to the right of the
    // anti-diagonal (where layer 0's previous-token heads moved it); scored at shift 0 only it read 0.25.
    const host = makeHost('reverse', 'attn2');
    const s = new TrainSession(host);
    const run = await s.ensureRun();
    await s.step(3000);
    const base = await run.trainer.inspect({});
    const head = roleHead(base.heads, 'reverse');
    expect(head).not.toBeNull();
    expect(head.score).toBeGreaterThan(0.5);
    // The predictions scored: the reversed half only (8 positions of 16), each one right.
    const from = scoredFrom('reverse', base);
    expect(from).toBe(8);
    const rows = predictionRows(base, null, (id) => run.trainer.task.decode([id]), from);
    expect(rows).toHaveLength(8);
    expect(rows.filter((r) => r.right)).toHaveLength(8);
    s.dropRun();
  }, 120000);
});
