import { modelToolName, parseModelToolName, toolsForManifest } from '../../src/llm/tool-definitions';

/** Model tool names: no dots (the Messages API refuses them), and every name maps back to its catalog tool. */
describe('model tool names', () => {
  test.each([
    ['order_lookup', 'lookup', 'order_lookup__lookup'],
    ['mcp.weather', 'weather_lookup', 'mcp-weather__weather_lookup'],
    ['mcp.crm_eu', 'get__contact-v2', 'mcp-crm_eu__get__contact-v2'],
  ])('%s.%s is offered as %s and maps back', (toolName, action, offered) => {
    expect(modelToolName(toolName, action)).toBe(offered);
    expect(offered).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(parseModelToolName(offered)).toEqual({ toolName, action });
  });

  test('an imported tool of the manifest is offered by its model name', () => {
    const tools = toolsForManifest(
      ['mcp.weather.weather_lookup'],
      [{ toolName: 'mcp.weather', action: 'weather_lookup', description: 'Forecast', inputSchema: { properties: {} } }],
    );
    expect(tools.map((t) => t.name)).toEqual(['mcp-weather__weather_lookup']);
  });
});
