# RouterLab on The Littlest JupyterHub: copy to /opt/tljh/config/jupyterhub_config.d/routerlab.py,
# then `sudo tljh-config reload`. TLJH loads every .py file of that folder after its own settings.
#
# Each student's server starts through RouterLab: their class workspace is made in their home on
# the first start (from the course bundle below, when it is set), JupyterLab opens notebook 00,
# and the workspace stays across restarts. Install RouterLab into the users' environment first
# (editable: the guided notebooks live in the checkout):
#   sudo apt-get install -y bubblewrap
#   sudo git clone https://github.com/OWNER/routerlab /opt/routerlab
#   sudo /opt/tljh/user/bin/pip install -e '/opt/routerlab[notebooks]'
c = get_config()  # noqa: F821 (TLJH provides it)

c.Spawner.cmd = ["/opt/tljh/user/bin/python", "-m", "routerlab.cli.hub_user"]
c.Spawner.default_url = "/lab/tree/notebooks/00-welcome.ipynb"
# The course bundle from `routerlab teacher release`, readable by every student:
c.Spawner.environment = {"ROUTERLAB_COURSE": "/srv/routerlab/course"}
