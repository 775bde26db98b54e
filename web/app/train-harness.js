// train-harness.html: exposes attnlab/train to the browser tests (window.attnTrain) and watches the
// main thread: long tasks (PerformanceObserver 'longtask', > 50 ms by definition) and the largest gap
// between ticks of a 10 ms timer (how late the page would have answered).
import { createTrainer, loadPretrained } from '../train/index.js';

const watch = { longTasks: [], maxLateMs: 0, observing: false };
let observer = null, timer = 0;

function startWatch() {
  watch.longTasks = [];
  watch.maxLateMs = 0;
  observer?.disconnect();
  observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) watch.longTasks.push({ start: e.startTime, duration: e.duration });
  });
  observer.observe({ type: 'longtask' });
  let last = performance.now();
  clearInterval(timer);
  timer = setInterval(() => {
    const t = performance.now();
    watch.maxLateMs = Math.max(watch.maxLateMs, t - last - 10);
    last = t;
  }, 10);
  watch.observing = true;
}

function stopWatch() {
  observer?.takeRecords().forEach((e) => watch.longTasks.push({ start: e.startTime, duration: e.duration }));
  observer?.disconnect();
  clearInterval(timer);
  watch.observing = false;
  return { longTasks: watch.longTasks.slice(), maxLateMs: watch.maxLateMs };
}

window.attnTrain = { createTrainer, loadPretrained, startWatch, stopWatch };
document.querySelector('output').textContent = 'ready';
